/**
 * The token cost of the gateway's `tools/list` on a 300-tool fleet, with and without search mode (issue 29):
 * characters of the JSON answer ÷ 4. Not timed: the figures depend only on the tool definitions.
 *
 * The fleet is made from real tool lists: server-everything, server-filesystem and server-memory (the versions
 * in the workspace catalog) are started over stdio through `McpManager` and listed; their tools are then
 * replicated under 30 realistic server names (round robin over the three lists, the last server cut) until there
 * are 300. Names are made by `NameTable` (policy `always`) for the default host (64) and for Cursor and Claude
 * Code with the default host key; search mode's surface is `search_tools` + `call_tool` (+ pinned tools).
 *
 *   node bench/src/gatewayTokens.ts
 *
 * @since 0.0.0
 */
import { NodeServices } from "@effect/platform-node"
import { HostLimits, NameTable, ToolSearch } from "@mcp-fleet/gateway"
import { ReferenceServers } from "@mcp-fleet/interop"
import { McpManager } from "@mcp-fleet/manager"
import type { Tool } from "@mcp-fleet/transport"
import * as Effect from "effect/Effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const TARGET = 300
const SERVER_NAMES = [
  "github",
  "gitlab",
  "jira",
  "linear",
  "notion",
  "slack",
  "postgres",
  "sqlite",
  "browser",
  "search",
  "docs",
  "calendar",
  "drive",
  "mail",
  "figma",
  "sentry",
  "grafana",
  "kubernetes",
  "aws",
  "stripe",
  "hubspot",
  "zendesk",
  "confluence",
  "asana",
  "trello",
  "dropbox",
  "s3-archive",
  "local-files",
  "team-memory",
  "playground"
]

const base = ["everything", "filesystem", "memory"] as const

const listReal = Effect.gen(function*() {
  const dir = mkdtempSync(join(tmpdir(), "gateway-tokens-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
  const servers = Object.fromEntries(base.map((name) => [name, ReferenceServers.command(name, dir)]))
  const manager = yield* McpManager.make({ servers })
  for (const name of base) yield* manager.waitForReady(name)
  const byServer = new Map<string, ReadonlyArray<Tool.DiscoveredTool>>()
  for (const name of base) byServer.set(name, manager.tools().filter((t) => t.server === name).map((t) => t.tool))
  return byServer
})

const chars = (value: unknown) => JSON.stringify(value).length
const tokens = (n: number) => Math.round(n / 4)

const program = Effect.gen(function*() {
  const real = yield* listReal
  const fleet: Array<Tool.ServerTool> = []
  for (let i = 0; fleet.length < TARGET; i++) {
    const server = SERVER_NAMES[i % SERVER_NAMES.length]! +
      (i >= SERVER_NAMES.length ? `-${Math.floor(i / SERVER_NAMES.length) + 1}` : "")
    for (const tool of real.get(base[i % base.length]!)!) {
      if (fleet.length === TARGET) break
      fleet.push({ server, tool })
    }
  }
  const servers = new Set(fleet.map((t) => t.server)).size
  const sizes = base.map((name) => `${name} ${real.get(name)!.length}`).join(", ")

  const surface = (maxLength: number) => {
    const table = NameTable.make(fleet.map((t) => ({ server: t.server, name: t.tool.name })), {
      maxLength,
      reserved: [ToolSearch.SEARCH_TOOLS, ToolSearch.CALL_TOOL]
    })
    const tools = fleet.map((t) => ({ ...t.tool, name: table.exposedName(t.server, t.tool.name)! }))
    return { table, tools }
  }
  const full = surface(64)
  const fullChars = chars({ tools: full.tools })
  const searchOnly = chars({ tools: [ToolSearch.searchToolsDefinition, ToolSearch.callToolDefinition] })
  const pinned = full.tools.filter((t) =>
    ["read_text_file", "read_graph", "echo"].includes(t.name.split("__")[1] ?? "")
  )
    .slice(0, 5)
  const searchPinned = chars({ tools: [ToolSearch.searchToolsDefinition, ToolSearch.callToolDefinition, ...pinned] })

  const index = ToolSearch.make(
    fleet.map((t) => ({ name: full.table.exposedName(t.server, t.tool.name)!, server: t.server, tool: t.tool }))
  )
  const queries = ["read a file", "create entities in the knowledge graph", "echo"]
  const answers = queries.map((q) => chars(ToolSearch.render(index.search(q)).content))

  const rows: Array<[string, number]> = [
    [`all ${fleet.length} tools, names server__tool`, fullChars],
    ["search mode: search_tools + call_tool", searchOnly],
    [`search mode + ${pinned.length} pinned tools`, searchPinned]
  ]
  console.log(`# tools/list token cost (characters ÷ 4), ${fleet.length} tools on ${servers} servers`)
  console.log(
    `real tool lists: ${sizes} (server-everything, -filesystem, -memory ${ReferenceServers.version("memory")})`
  )
  console.log("")
  console.log("| surface | characters | tokens | vs all tools |")
  console.log("| --- | ---: | ---: | ---: |")
  for (const [label, n] of rows) {
    console.log(
      `| ${label} | ${n.toLocaleString("en")} | ${tokens(n).toLocaleString("en")} | ${
        (100 * n / fullChars).toFixed(1)
      } % |`
    )
  }
  console.log("")
  console.log("| search_tools answer (top 5) | characters | tokens |")
  console.log("| --- | ---: | ---: |")
  queries.forEach((q, i) =>
    console.log(`| "${q}" | ${answers[i]!.toLocaleString("en")} | ${tokens(answers[i]!).toLocaleString("en")} |`)
  )
  console.log("")
  console.log("| host (key \"mcp-fleet\") | name limit | names shortened | longest name |")
  console.log("| --- | ---: | ---: | ---: |")
  for (const client of [undefined, "cursor-vscode", "claude-code", "Visual Studio Code"]) {
    const limit = HostLimits.forClient(client === undefined ? undefined : { name: client })
    const { table } = surface(limit.maxLength)
    const longest = Math.max(...table.named.map((n) => n.exposed.length))
    console.log(
      `| ${limit.host ?? "default"} | ${limit.maxLength} | ${
        table.named.filter((n) => n.shortened).length
      } | ${longest} |`
    )
  }
})

Effect.runPromise(program.pipe(Effect.scoped, Effect.provide(NodeServices.layer))).catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
