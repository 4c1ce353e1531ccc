/**
 * One host's view of the surface: the profile's servers and filters, names within the host's limit that map back,
 * the gateway's own tool never taken, search mode past the threshold with the pinned tools still listed.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Tool } from "@mcp-fleet/transport"
import { Effect } from "effect"
import * as NameTable from "../src/NameTable.ts"
import * as Profiles from "../src/Profiles.ts"
import type * as Surface from "../src/server/Surface.ts"
import * as View from "../src/server/View.ts"
import * as ToolSearch from "../src/ToolSearch.ts"

const tool = (name: string, readOnly?: boolean): Tool.DiscoveredTool => ({
  name,
  description: `The ${name} tool`,
  inputSchema: { type: "object" },
  ...(readOnly === undefined ? {} : { annotations: { readOnlyHint: readOnly } })
})

const own: Tool.DiscoveredTool = { name: "fleet_status", inputSchema: { type: "object" } }

const surface = (tools: Record<string, ReadonlyArray<Tool.DiscoveredTool>>, offline: ReadonlyArray<string> = []) =>
  ({
    tools: Object.entries(tools).flatMap(([server, list]) =>
      list.map((item) => ({ server, item, offline: offline.includes(server) }))
    ),
    prompts: Object.keys(tools).map((server) => ({
      server,
      item: { name: "summarize" },
      offline: offline.includes(server)
    })),
    resources: [],
    templates: [],
    offline: new Set(offline),
    servers: Object.keys(tools).sort(),
    nextExpiry: undefined
  }) satisfies Surface.Surface

const profile = (config: Profiles.ProfilesConfig = {}, name?: string) => Profiles.select(config, name)

const listedNames = (view: View.View) => view.listed.map((t) => String(t["name"]))

describe("View", () => {
  it.effect("always: server__tool for every tool, each mapping back; the gateway's own tool last", () =>
    Effect.gen(function*() {
      const view = View.make(
        surface({ memory: [tool("read_graph")], everything: [tool("echo"), tool("fleet_status")] }),
        yield* profile(),
        { policy: "always", maxLength: 64, own: [own] }
      )
      assert.deepStrictEqual(listedNames(view), [
        "everything__echo",
        "everything__fleet_status",
        "memory__read_graph",
        "fleet_status"
      ])
      assert.strictEqual(view.tool("memory__read_graph")?.server, "memory")
      assert.strictEqual(view.tool("memory__read_graph")?.tool.name, "read_graph")
      assert.strictEqual(view.tool("fleet_status"), undefined, "the gateway's own tool is not an upstream one")
      assert.deepStrictEqual(view.prompts.map((p) => p.exposed), ["everything__summarize", "memory__summarize"])
    }))

  it.effect("conditional: a name one server offers stays bare; a shared one is prefixed", () =>
    Effect.gen(function*() {
      const view = View.make(
        surface({ a: [tool("echo"), tool("only_a")], b: [tool("echo")] }),
        yield* profile(),
        { policy: "conditional", maxLength: 64, own: [own] }
      )
      assert.sameMembers(listedNames(view), ["a__echo", "b__echo", "only_a", "fleet_status"])
    }))

  it.effect("a host's length limit: every name fits and maps back", () =>
    Effect.gen(function*() {
      const long = "x".repeat(70)
      const view = View.make(surface({ "some-server": [tool(long)] }), yield* profile(), {
        policy: "always",
        maxLength: 48,
        own: [own]
      })
      const exposed = view.listed.map((t) => String(t["name"])).find((name) => name !== "fleet_status")!
      assert.isAtMost(exposed.length, 48)
      assert.isTrue(NameTable.isValidName(exposed, 48))
      assert.strictEqual(view.tool(exposed)?.tool.name, long)
    }))

  it.effect("a profile's servers and filters: other servers' tools and prompts are not shown, nor callable", () =>
    Effect.gen(function*() {
      const config: Profiles.ProfilesConfig = {
        filters: { fs: { deny: ["write_*"] } },
        profiles: { reader: { servers: ["fs"], readOnly: "lenient" } }
      }
      const view = View.make(
        surface({
          fs: [tool("read_file", true), tool("write_file"), tool("delete", false)],
          memory: [tool("read_graph")]
        }),
        yield* profile(config, "reader"),
        { policy: "always", maxLength: 64, own: [own] }
      )
      assert.deepStrictEqual(listedNames(view), ["fs__read_file", "fleet_status"])
      assert.strictEqual(view.tool("memory__read_graph"), undefined)
      assert.strictEqual(view.tool("fs__write_file"), undefined)
      assert.isFalse(view.includes("memory"))
      assert.deepStrictEqual(view.prompts.map((p) => p.exposed), ["fs__summarize"])
      assert.isTrue(view.notes.some((note) => note.includes("left out by the profile reader")))
    }))

  it.effect("search mode past the threshold: search_tools, call_tool, the pinned tools; every kept tool still callable", () =>
    Effect.gen(function*() {
      const many = Array.from({ length: 50 }, (_, i) => tool(`tool_${i}`))
      const view = View.make(
        surface({ big: many }),
        yield* profile({ pinned: [{ server: "big", tool: "tool_7" }] }),
        { policy: "always", maxLength: 64, own: [own] }
      )
      assert.deepStrictEqual(listedNames(view), [
        ToolSearch.SEARCH_TOOLS,
        ToolSearch.CALL_TOOL,
        "big__tool_7",
        "fleet_status"
      ])
      assert.isDefined(view.search)
      assert.strictEqual(view.tool("big__tool_42")?.tool.name, "tool_42")
      assert.strictEqual(view.search?.search("tool_42")[0]?.name, "big__tool_42")
    }))

  it.effect("an offline server's tools are marked offline (the grace period)", () =>
    Effect.gen(function*() {
      const view = View.make(surface({ a: [tool("echo")] }, ["a"]), yield* profile(), {
        policy: "never",
        maxLength: 64,
        own: [own]
      })
      assert.isTrue(view.tool("echo")?.offline)
    }))
})
