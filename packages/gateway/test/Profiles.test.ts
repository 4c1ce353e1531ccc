/**
 * Profiles: the Schema decodes the configuration or reports every problem with its path; select merges a named
 * profile over the top level; apply sorts every tool into kept or dropped, with pins.
 */
import { assert, describe, it } from "@effect/vitest"
import { GatewayError, Profiles } from "@mcp-fleet/gateway"
import type { Tool } from "@mcp-fleet/transport"
import { Effect, Exit } from "effect"

const tool = (server: string, name: string, readOnlyHint?: boolean): Tool.ServerTool => ({
  server,
  tool: readOnlyHint === undefined
    ? { name, inputSchema: {} }
    : { name, inputSchema: {}, annotations: { readOnlyHint } }
})

const fleet = [
  tool("filesystem", "read_file", true),
  tool("filesystem", "write_file", false),
  tool("filesystem", "move_file"),
  tool("memory", "read_graph", true),
  tool("memory", "create_entities", false),
  tool("everything", "echo")
]

const config = {
  filters: { filesystem: { deny: ["move_*"] } },
  profiles: {
    readonly: { readOnly: true },
    notes: { servers: ["memory"], pinned: [{ server: "memory", tool: "read_*" }], mode: "search" }
  }
}

describe("Profiles", () => {
  it.effect("the default profile: fleet-wide filters only", () =>
    Effect.gen(function*() {
      const decoded = yield* Profiles.decode(config)
      const selection = Profiles.apply(yield* Profiles.select(decoded, undefined), fleet)
      assert.deepStrictEqual(selection.kept.map((t) => t.tool.name), [
        "read_file",
        "write_file",
        "read_graph",
        "create_entities",
        "echo"
      ])
      assert.deepStrictEqual(selection.dropped.map((d) => [d.tool.tool.name, d.reason]), [
        ["move_file", "matches the deny glob \"move_*\""]
      ])
    }))

  it.effect("a named profile stacks its filters on the fleet's, and every tool is kept or dropped once", () =>
    Effect.gen(function*() {
      const decoded = yield* Profiles.decode(config)
      const selection = Profiles.apply(yield* Profiles.select(decoded, "readonly"), fleet)
      assert.deepStrictEqual(selection.kept.map((t) => t.tool.name), ["read_file", "read_graph"])
      assert.strictEqual(selection.kept.length + selection.dropped.length, fleet.length)
      const reasons = Object.fromEntries(selection.dropped.map((d) => [d.tool.tool.name, d.reason]))
      assert.strictEqual(reasons["move_file"], "matches the deny glob \"move_*\"")
      assert.strictEqual(reasons["echo"], "readOnly: it has no readOnlyHint (unknown, treated as a write)")
    }))

  it.effect("servers, pins and mode of a named profile", () =>
    Effect.gen(function*() {
      const profile = yield* Profiles.select(yield* Profiles.decode(config), "notes")
      assert.isTrue(profile.includes("memory"))
      assert.isFalse(profile.includes("filesystem"))
      assert.strictEqual(profile.mode, "search")
      const selection = Profiles.apply(profile, fleet)
      assert.deepStrictEqual(selection.kept.map((t) => t.tool.name), ["read_graph", "create_entities"])
      assert.deepStrictEqual(selection.pinned.map((t) => t.tool.name), ["read_graph"])
      assert.match(selection.dropped[0]!.reason, /server "filesystem" is not in profile "notes"/)
    }))

  it.effect("a pin on a filtered-out tool pins nothing", () =>
    Effect.gen(function*() {
      const decoded = yield* Profiles.decode({ pinned: [{ server: "filesystem", tool: "move_file" }], ...config })
      const selection = Profiles.apply(yield* Profiles.select(decoded, undefined), fleet)
      assert.deepStrictEqual(selection.pinned, [])
    }))

  it.effect("an unknown profile is a typed error naming the profiles there are", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Profiles.select(yield* Profiles.decode(config), "nope"))
      assert.isTrue(Exit.isFailure(exit))
      const error = yield* Effect.flip(Profiles.select(yield* Profiles.decode(config), "nope"))
      assert.instanceOf(error, GatewayError.UnknownProfile)
      assert.strictEqual(
        error.message,
        "No gateway profile is named \"nope\"; the profiles are \"notes\", \"readonly\"."
      )
    }))

  it.effect("a bad configuration reports every problem with its path, typos included", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Profiles.decode({
        mode: "fast",
        filters: { fs: { alow: ["x"] } },
        profiles: { "bad name": {}, ok: { searchThreshold: -1, pinned: [{ server: "a" }] } }
      }))
      assert.instanceOf(error, GatewayError.InvalidProfiles)
      const text = error.issues.join("\n")
      assert.include(text, "at mode:")
      assert.include(text, "at filters.fs.alow:")
      assert.include(text, "at profiles.bad name:")
      assert.include(text, "at profiles.ok.searchThreshold:")
      assert.include(text, "at profiles.ok.pinned[0].tool:")
      assert.match(error.message, /^The gateway's profiles configuration is invalid: /)
    }))
})
