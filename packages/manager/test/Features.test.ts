/**
 * Resources, resource templates and prompts across the fleet (issue 15): aggregated with their server, listed
 * only for servers that declare them, refreshed on `list_changed` (coalesced), counted in the status text, and
 * read or rendered on the one server named.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Option } from "effect"
import { always, build, fleetSpawner, until } from "./fleetPeers.ts"

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value
}

const tools = { tools: [{ name: "t", inputSchema: { type: "object" } }] }

describe("the manager's resources and prompts", () => {
  it.effect("aggregated with their server, counted in the status text, refreshed on list_changed (coalesced)", () =>
    Effect.gen(function*() {
      let resources = [{ uri: "docs://a", name: "a" }, { uri: "docs://b", name: "b" }]
      const listed: Array<string> = []
      const plainMethods: Array<string> = []
      const { layer, spawned } = fleetSpawner({
        docs: always({
          initialize: { capabilities: { tools: {}, resources: { listChanged: true }, prompts: {} } },
          onRequest: (msg) =>
            Effect.sync(() => {
              if (typeof msg.method === "string" && msg.method.endsWith("/list")) listed.push(msg.method)
              switch (msg.method) {
                case "tools/list":
                  return tools
                case "resources/list":
                  return { resources }
                case "resources/templates/list":
                  return { resourceTemplates: [{ uriTemplate: "docs://{name}", name: "doc" }] }
                case "prompts/list":
                  return { prompts: [{ name: "summarize" }] }
                case "resources/read":
                  return { contents: [{ uri: "docs://a", text: "A" }] }
                case "prompts/get":
                  return { messages: [{ role: "user", content: { type: "text", text: "summarize it" } }] }
                default:
                  return undefined
              }
            })
        }),
        plain: always({
          onRequest: (msg) =>
            Effect.sync(() => {
              plainMethods.push(String(msg.method))
              return msg.method === "tools/list" ? tools : undefined
            })
        })
      })
      const manager = yield* build({ servers: { docs: { command: "docs" }, plain: { command: "plain" } } }, layer)
      yield* manager.waitForReady("docs")
      yield* manager.waitForReady("plain")
      // The catalog wakes the snapshots when a listing ends: the latch checks the catalog on each one.
      yield* until(manager, "docs", () => manager.resources().length === 2 && manager.prompts().length === 1)
      assert.deepStrictEqual(manager.resources().map((r) => [r.server, r.resource.uri]), [
        ["docs", "docs://a"],
        ["docs", "docs://b"]
      ])
      assert.deepStrictEqual(manager.resourceTemplates().map((t) => [t.server, t.template.uriTemplate]), [[
        "docs",
        "docs://{name}"
      ]])
      assert.deepStrictEqual(manager.prompts().map((p) => [p.server, p.prompt.name]), [["docs", "summarize"]])
      const lines = manager.statusLines().split("\n")
      assert.strictEqual(lines[1], "docs: ready · 1 tool (0 curated, 1 external) · 1 prompt · 2 resources")
      assert.strictEqual(lines[2], "plain: ready · 1 tool (0 curated, 1 external)")
      assert.strictEqual(manager.health().find((h) => h.name === "plain")?.resources, undefined)
      // Nothing asked of the server that declares neither.
      assert.deepStrictEqual(plainMethods, ["tools/list"])

      // A burst of list_changed: the list is fetched again, fewer times than notified, and the new one is shown.
      const before = listed.filter((m) => m === "resources/list").length
      resources = [{ uri: "docs://c", name: "c" }]
      const peer = spawned.peers["docs"]![0]!
      for (let i = 0; i < 5; i++) {
        yield* peer.send({ jsonrpc: "2.0", method: "notifications/resources/list_changed" })
      }
      yield* until(manager, "docs", () => manager.resources().length === 1)
      assert.deepStrictEqual(manager.resources().map((r) => r.resource.uri), ["docs://c"])
      const again = listed.filter((m) => m === "resources/list").length - before
      assert.isAtLeast(again, 1)
      assert.isBelow(again, 5)
      assert.include(manager.statusLines(), "· 1 prompt · 1 resource")

      // Read and render on the named server only.
      const read = yield* manager.readResource("docs", "docs://a")
      assert.deepStrictEqual(read.contents, [{ uri: "docs://a", text: "A" }])
      const prompt = yield* manager.getPrompt("docs", "summarize", { style: "short" })
      assert.strictEqual(prompt.messages.length, 1)
      const missing = failureOf(yield* Effect.exit(manager.readResource("plain", "docs://a")))
      assert.strictEqual(missing._tag, "CapabilityNotSupported")
      const unknown = failureOf(yield* Effect.exit(manager.getPrompt("nope", "x")))
      assert.strictEqual(unknown._tag, "UnknownServer")
    }))

  it.effect("serverLogLevel is asked of every server that declares logging, once ready; not of the others", () =>
    Effect.gen(function*() {
      const asked: Array<[string, unknown]> = []
      const setLevel = Deferred.makeUnsafe<void>()
      const serve = (name: string, capabilities: Record<string, unknown>) =>
        always({
          initialize: { capabilities },
          onRequest: (msg) =>
            Effect.sync(() => {
              if (msg.method === "logging/setLevel") {
                asked.push([name, msg.params])
                Deferred.doneUnsafe(setLevel, Exit.void)
              }
              return msg.method === "tools/list" ? tools : msg.method === "logging/setLevel" ? {} : undefined
            })
        })
      const { layer } = fleetSpawner({
        loud: serve("loud", { tools: {}, logging: {} }),
        quiet: serve("quiet", { tools: {} })
      })
      const manager = yield* build({
        servers: { loud: { command: "loud" }, quiet: { command: "quiet" } },
        serverLogLevel: "warning"
      }, layer)
      yield* manager.waitForReady("loud")
      yield* manager.waitForReady("quiet")
      yield* Deferred.await(setLevel)
      assert.deepStrictEqual(asked, [["loud", { level: "warning" }]])
    }))
})
