/**
 * Assembling a server's tool list from its pages: each listed tool decoded on its own (one bad tool is skipped and
 * reported, never the whole list lost), and the first tool of a name kept (a later one is reported, never merged).
 *
 * @internal
 */
import * as Exit from "effect/Exit"
import type { Page } from "../internal/CursorLoop.ts"
import { schemaDetail } from "../internal/SchemaDetail.ts"
import { ProtocolError } from "../McpError.ts"
import type { DiscoveredTool } from "../Tool.ts"
import { decodePage, decodeTool } from "./WireDecoders.ts"

/** A listed tool left out, and why. `index` counts every listed tool, across pages. */
export interface Skipped {
  readonly index: number
  readonly name: string | undefined
  readonly reason: string
}

/** Collects the tools of successive pages. */
export interface Collector {
  readonly tools: Array<DiscoveredTool>
  readonly skipped: Array<Skipped>
  readonly add: (items: ReadonlyArray<unknown>) => void
}

const nameOf = (item: unknown): string | undefined =>
  typeof item === "object" && item !== null && "name" in item && typeof item.name === "string" ? item.name : undefined

/**
 * A fresh collector; `scrub` redacts what a skipped entry repeats of the server's text (its name and reason), and
 * `check`, when given, refuses a decoded tool with the reason it returns.
 */
export const collector = (
  scrub: (text: string) => string = (text) => text,
  check?: (tool: DiscoveredTool) => string | undefined
): Collector => {
  const tools: Array<DiscoveredTool> = []
  const skipped: Array<Skipped> = []
  const firstIndex = new Map<string, number>()
  return {
    tools,
    skipped,
    add: (items) => {
      for (const item of items) {
        const index = tools.length + skipped.length
        const tool = decodeTool(item)
        if (Exit.isFailure(tool)) {
          const name = nameOf(item)
          skipped.push({
            index,
            name: name === undefined ? undefined : scrub(name),
            reason: scrub(schemaDetail(tool.cause))
          })
          continue
        }
        const name = tool.value.name
        const first = firstIndex.get(name)
        if (first !== undefined) {
          skipped.push({
            index,
            name,
            reason: `another tool named ${
              JSON.stringify(name)
            } was listed before it (index ${first}); the first is kept`
          })
          continue
        }
        const refused = check?.(tool.value)
        if (refused !== undefined) {
          skipped.push({ index, name: scrub(name), reason: scrub(refused) })
          continue
        }
        firstIndex.set(name, index)
        tools.push(tool.value)
      }
    }
  }
}

/** Decodes one `tools/list` page's envelope for `server`. */
export const page = (server: string) => (raw: unknown): Exit.Exit<Page, ProtocolError> => {
  const decoded = decodePage(raw)
  return Exit.isSuccess(decoded)
    ? Exit.succeed({ items: decoded.value.tools, nextCursor: decoded.value.nextCursor })
    : Exit.fail(new ProtocolError({ server, method: "tools/list", detail: schemaDetail(decoded.cause) }))
}
