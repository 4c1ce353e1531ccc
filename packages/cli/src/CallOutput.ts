/**
 * How `mcp-fleet call` prints a tool's result: `structuredContent`, when the tool sent it, as indented JSON
 * (the spec asks tools to repeat it as JSON text, so the text blocks are not printed twice); otherwise each
 * content block in order — text as it is, other blocks as one bracketed line that describes them (binary data
 * is never dumped on a terminal).
 *
 * @since 0.1.0
 */
import type { Protocol } from "@mcp-fleet/transport"

const field = (block: Protocol.ContentBlock, key: string): unknown => block[key]

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

const describeBytes = (base64: unknown): string => {
  if (typeof base64 !== "string") return "no data"
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0
  return `${Math.floor((base64.length * 3) / 4) - padding} bytes`
}

/**
 * One content block as text.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderBlock = (block: Protocol.ContentBlock): string => {
  switch (block.type) {
    case "text":
      return text(field(block, "text")) ?? ""
    case "image":
    case "audio":
      return `[${block.type} ${text(field(block, "mimeType")) ?? "(no type)"}, ${describeBytes(field(block, "data"))}]`
    case "resource_link": {
      const name = text(field(block, "name"))
      return `[resource link ${text(field(block, "uri")) ?? "(no uri)"}${name !== undefined ? ` ${name}` : ""}]`
    }
    case "resource": {
      const resource = field(block, "resource")
      const inner: Readonly<Record<string, unknown>> = typeof resource === "object" && resource !== null
        ? Object.fromEntries(Object.entries(resource))
        : {}
      const body = text(inner["text"])
      if (body !== undefined) return body
      return `[resource ${text(inner["uri"]) ?? "(no uri)"} ${text(inner["mimeType"]) ?? ""}, ${
        describeBytes(inner["blob"])
      }]`.replace(/ ,/, ",")
    }
    default:
      return JSON.stringify(block)
  }
}

/**
 * The content blocks, one after the other, separated by newlines.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderContent = (result: Protocol.CallToolResult): string => result.content.map(renderBlock).join("\n")

/**
 * What `call` prints for a successful result: the structured content as JSON, or else the content blocks.
 *
 * @example
 * ```ts
 * import { CallOutput } from "@mcp-fleet/cli"
 *
 * CallOutput.render({ content: [{ type: "text", text: "hello" }] }) // "hello"
 * CallOutput.render({ content: [], structuredContent: { n: 1 } })  // '{\n  "n": 1\n}'
 * ```
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (result: Protocol.CallToolResult): string =>
  result.structuredContent !== undefined ? JSON.stringify(result.structuredContent, null, 2) : renderContent(result)

/**
 * `call --json`: the tool's result as the server sent it — raw content blocks (images and audio as base64), the
 * structured content when there is one — with the server and tool it came from. Stable: fields are only added.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallJson {
  readonly server: string
  readonly tool: string
  readonly isError: boolean
  readonly content: ReadonlyArray<Protocol.ContentBlock>
  readonly structuredContent: unknown
}

/**
 * Builds the `call --json` document (`structuredContent` is `null` when the tool sent none).
 *
 * @since 0.1.0
 * @category rendering
 */
export const toJson = (server: string, tool: string, result: Protocol.CallToolResult): CallJson => ({
  server,
  tool,
  isError: result.isError === true,
  content: result.content,
  structuredContent: result.structuredContent ?? null
})

/**
 * The bytes of the first image or audio block (or embedded binary resource) of a result, with its MIME type;
 * `undefined` when it has none.
 *
 * @since 0.1.0
 * @category rendering
 */
export const firstBinary = (
  result: Protocol.CallToolResult
): { readonly bytes: Uint8Array; readonly mimeType: string } | undefined => {
  for (const block of result.content) {
    const resource = field(block, "resource")
    const inner: Readonly<Record<string, unknown>> = block.type === "resource" && typeof resource === "object" &&
        resource !== null
      ? Object.fromEntries(Object.entries(resource))
      : {}
    const data = block.type === "image" || block.type === "audio" ? field(block, "data") : inner["blob"]
    if (typeof data !== "string") continue
    const mimeType = text(block.type === "resource" ? inner["mimeType"] : field(block, "mimeType"))
    return { bytes: Uint8Array.from(Buffer.from(data, "base64")), mimeType: mimeType ?? "application/octet-stream" }
  }
  return undefined
}
