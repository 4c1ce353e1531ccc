/**
 * What a tool result becomes for the model. Text, resource links and embedded text resources become text;
 * images, audio and embedded binary resources become files (sent to the model as file parts, which
 * providers show as images or audio where they can); `structuredContent` is kept as it is.
 *
 * @since 0.1.0
 */
import type { Protocol } from "@mcp-fleet/transport"
import { Predicate, Schema } from "effect"
import { Prompt } from "effect/ai"

/**
 * A file the tool returned: an image, audio, or an embedded binary resource, base64 as sent.
 *
 * @since 0.1.0
 * @category schemas
 */
export const File = Schema.Struct({
  mediaType: Schema.String,
  data: Schema.String,
  fileName: Schema.optionalKey(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type File = typeof File.Type

/**
 * A successful tool result as the model gets it (the JSON `result` of the tool-result part).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Output = Schema.Struct({
  /** Every text block, resource link and embedded text resource, in order, one per line. */
  text: Schema.String,
  files: Schema.Array(File),
  /** Any JSON value (an object before MCP 2026-07-28, and still most often). */
  structuredContent: Schema.optionalKey(Schema.Unknown)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type Output = typeof Output.Type

/** A string field of an object, or `undefined` (absent, or not a string). */
const str = (value: unknown, key: string): string | undefined => {
  if (!Predicate.hasProperty(value, key)) return undefined
  const field = value[key]
  return typeof field === "string" ? field : undefined
}

const lastSegment = (uri: string): string | undefined => {
  const segment = uri.split(/[/\\]/).filter((s) => s.length > 0).at(-1)
  return segment === undefined || segment.includes(":") ? undefined : segment
}

/**
 * Reads a result's content blocks in order. Unknown block types are named in the text, never dropped silently.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromResult = (result: Protocol.CallToolResult): Output => {
  const lines: Array<string> = []
  const files: Array<File> = []
  for (const block of result.content) {
    switch (block.type) {
      case "text": {
        lines.push(str(block, "text") ?? "")
        break
      }
      case "image":
      case "audio": {
        const data = str(block, "data")
        const mediaType = str(block, "mimeType") ?? (block.type === "image" ? "image/*" : "audio/*")
        if (data === undefined) lines.push(`[${block.type} without data]`)
        else files.push({ mediaType, data })
        break
      }
      case "resource_link": {
        const uri = str(block, "uri") ?? ""
        const label = str(block, "title") ?? str(block, "name") ?? uri
        const description = str(block, "description")
        lines.push(description === undefined ? `${label}: ${uri}` : `${label}: ${uri}\n${description}`)
        break
      }
      case "resource": {
        const resource = block["resource"]
        const uri = str(resource, "uri") ?? ""
        const text = str(resource, "text")
        const blob = str(resource, "blob")
        if (text !== undefined) {
          lines.push(text)
        } else if (blob !== undefined) {
          const fileName = lastSegment(uri)
          files.push({
            mediaType: str(resource, "mimeType") ?? "application/octet-stream",
            data: blob,
            ...(fileName === undefined ? {} : { fileName })
          })
        } else {
          lines.push(`[resource ${uri} without text or blob]`)
        }
        break
      }
      default:
        lines.push(`[content of type "${block.type}" not shown]`)
    }
  }
  return {
    text: lines.join("\n"),
    files,
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent })
  }
}

/**
 * The parts the model is shown: the text (or, when the tool sent no text, its `structuredContent` as JSON),
 * then one file part per file.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toModelOutput = (output: Output): ReadonlyArray<Prompt.ToolModelOutputPart> => {
  const text = output.text.length > 0 || output.structuredContent === undefined
    ? output.text
    : JSON.stringify(output.structuredContent)
  return [
    Prompt.textPart({ text }),
    ...output.files.map((file) =>
      Prompt.filePart({
        mediaType: file.mediaType,
        data: file.data,
        ...(file.fileName === undefined ? {} : { fileName: file.fileName })
      })
    )
  ]
}

/**
 * What the model is told when the tool itself reported an error (`isError: true`): the tool's own text,
 * or a sentence saying it gave none.
 *
 * @since 0.1.0
 * @category conversions
 */
export const errorText = (result: Protocol.CallToolResult): string => {
  const { text } = fromResult(result)
  return text.length > 0 ? text : "The tool reported an error without a message."
}
