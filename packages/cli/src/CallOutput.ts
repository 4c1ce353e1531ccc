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

const describeBytes = (base64: unknown): string =>
  typeof base64 === "string" ? `${Math.floor((base64.length * 3) / 4)} bytes` : "no data"

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
