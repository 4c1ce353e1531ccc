/**
 * The gateway over a fleet of several real servers (the conformance fixture and the `memory` reference server, as
 * stdio children), with several hosts (mcp-fleet's client over HTTP, 2025-11-25 sessions):
 *
 * - names are namespaced (`always`) and each reaches its own server;
 * - hosts share one upstream process per server (no duplicates), and a host that leaves frees only its own state;
 * - a fleet change reaches every connected host as `tools/list_changed`, and the new server's tools are listed;
 * - an offline server's tools stay listed for the grace period and answer at once with `isError` and the manager's
 *   explanation, and `fleet_status` says the same.
 */
import { NodeHttpClient, NodeHttpServer, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpGateway } from "@mcp-fleet/gateway"
import type { ManagerOptions } from "@mcp-fleet/manager"
import { McpManager } from "@mcp-fleet/manager"
import { McpClient } from "@mcp-fleet/transport"
import { Deferred, Effect, Exit, Fiber, FileSystem, Layer, Scope, Stream } from "effect"
import type { HttpClient } from "effect/http"
import { HttpServer } from "effect/http"
import { createServer } from "node:http"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as ReferenceServers from "../src/ReferenceServers.ts"

const fixture = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "servers", "conformance-upstream.mjs")
const fixtureServer: ManagerOptions.ServerConfig = { command: process.execPath, args: [fixture, "stdio"] }

const textOf = (result: { readonly content: ReadonlyArray<Record<string, unknown>> }) =>
  result.content.map((block) => String(block["text"] ?? "")).join("")

/**
 * Runs `use` with a gateway over HTTP in front of `servers` (all ready first), and a way to connect hosts to it.
 * Reconnection waits a minute: an offline server stays offline for the test.
 */
const withGateway = <A, E>(
  servers: (dir: string) => Readonly<Record<string, ManagerOptions.ServerConfig>>,
  use: (fleet: {
    readonly manager: McpManager.McpManager["Service"]
    readonly gateway: McpGateway.McpGateway["Service"]
    readonly host: (name: string) => Effect.Effect<McpClient.McpClient, never, Scope.Scope | HttpClient.HttpClient>
  }) => Effect.Effect<A, E, Scope.Scope | HttpClient.HttpClient>
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.makeTempDirectoryScoped({ prefix: "mcp-fleet-gateway-fleet-" })
    const configured = servers(dir)
    const stack = McpGateway.layerHttp().pipe(
      Layer.provideMerge(
        // Every tool listed (no search mode past 40 tools: two fixtures offer 70).
        McpGateway.layerFleet({ servers: configured, reconnect: { initialDelay: "1 minute", maxAttempts: 1 } }, {
          profiles: { mode: "tools" }
        })
      ),
      Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" }))
    )
    const context = yield* Layer.build(stack)
    return yield* Effect.gen(function*() {
      const manager = yield* McpManager.McpManager
      const gateway = yield* McpGateway.McpGateway
      for (const name of Object.keys(configured)) yield* Effect.orDie(manager.waitForReady(name))
      const address = (yield* HttpServer.HttpServer).address
      const url = `http://127.0.0.1:${"port" in address ? address.port : 0}/mcp`
      const host = (name: string) =>
        Effect.gen(function*() {
          const client = yield* Effect.orDie(McpClient.make({ url, name, protocol: "legacy", transport: "http" }))
          yield* Effect.orDie(client.awaitReady)
          return client
        })
      return yield* use({ manager, gateway, host })
    }).pipe(Effect.provide(context))
  }).pipe(Effect.scoped, Effect.provide([NodeHttpClient.layerUndici, NodeServices.layer]))

describe("the gateway over a fleet", { timeout: 90_000 }, () => {
  it.live("names are server__tool and each reaches its server; hosts share one process per server", () =>
    withGateway(
      (dir) => ({ conformance: fixtureServer, memory: ReferenceServers.command("memory", dir) }),
      ({ gateway, host, manager }) =>
        Effect.gen(function*() {
          const pids = () => manager.health().map((h) => `${h.name}:${h.pid}`).sort()
          const before = pids()
          const a = yield* host("host-a")
          const b = yield* host("host-b")
          const names = (yield* a.listTools()).tools.map((t) => t.name)
          assert.include(names, "conformance__test_simple_text")
          assert.include(names, "memory__read_graph")
          assert.include(names, "fleet_status")
          assert.notInclude(names, "test_simple_text")
          const graph = yield* a.callTool("memory__create_entities", {
            entities: [{ name: "gateway", entityType: "test", observations: ["shared"] }]
          })
          assert.isFalse(graph.isError === true)
          // Host b reads what host a wrote: one memory process serves both.
          assert.include(textOf(yield* b.callTool("memory__read_graph", {})), "gateway")
          assert.include(textOf(yield* b.callTool("conformance__test_simple_text", {})), "simple text response")
          assert.deepStrictEqual(pids(), before, "no upstream process was started for a host")
          assert.strictEqual(gateway.stats().hosts, 2)
        }).pipe(Effect.scoped)
    ))

  it.live("a host that leaves frees only its own state: its session, not the others'", () =>
    withGateway(
      () => ({ conformance: fixtureServer }),
      ({ gateway, host }) =>
        Effect.gen(function*() {
          const stays = yield* host("stays")
          const leaving = yield* Scope.make()
          const leaves = yield* host("leaves").pipe(Scope.provide(leaving))
          yield* leaves.subscribeResource("test://watched-resource")
          assert.strictEqual(gateway.stats().hosts, 2)
          yield* Scope.close(leaving, Exit.void)
          assert.strictEqual(gateway.stats().hosts, 1, "the leaving host's session was closed (DELETE)")
          assert.include(textOf(yield* stays.callTool("conformance__test_simple_text", {})), "simple text response")
        }).pipe(Effect.scoped)
    ))

  it.live("a fleet change reaches every connected host as tools/list_changed; the new tools are listed", () =>
    withGateway(
      () => ({ conformance: fixtureServer }),
      ({ host, manager }) =>
        Effect.gen(function*() {
          const hosts = [yield* host("one"), yield* host("two")]
          const told = yield* Effect.forEach(hosts, (client) =>
            Effect.gen(function*() {
              const changed = yield* Deferred.make<void>()
              yield* client.listChanges.pipe(
                Stream.filter((kind) => kind === "tools"),
                Stream.runForEach(() => Deferred.succeed(changed, undefined)),
                Effect.forkScoped
              )
              return changed
            }))
          yield* manager.add("second", fixtureServer)
          yield* Effect.orDie(manager.waitForReady("second"))
          yield* Effect.forEach(told, Deferred.await, { discard: true })
          const names = (yield* hosts[0]!.listTools()).tools.map((t) => t.name)
          assert.include(names, "second__test_simple_text")
          assert.include(names, "conformance__test_simple_text")
        }).pipe(Effect.scoped)
    ))

  it.live("an upstream that dies mid-call: every waiting host gets isError with the reason at once, no hang", () =>
    withGateway(
      () => ({ conformance: fixtureServer }),
      ({ host, manager }) =>
        Effect.gen(function*() {
          const hosts = [yield* host("first"), yield* host("second")]
          const started = yield* Effect.forEach(hosts, () => Deferred.make<void>())
          const calls = yield* Effect.forEach(hosts, (client, i) =>
            Effect.forkChild(client.callTool("conformance__test_wait", { ms: 600_000 }, {
              onProgress: () =>
                Effect.asVoid(Deferred.succeed(started[i]!, undefined))
            })))
          yield* Effect.forEach(started, Deferred.await, { discard: true })
          yield* (yield* Effect.orDie(manager.client("conformance"))).forceClose
          for (const call of calls) {
            const result = yield* Fiber.join(call)
            assert.isTrue(result.isError, "an isError result, not a hang")
            assert.include(textOf(result), "conformance")
          }
        }).pipe(Effect.scoped)
    ))

  it.live("an offline server's tools stay listed and answer at once with isError and the manager's explanation", () =>
    withGateway(
      (dir) => ({ conformance: fixtureServer, memory: ReferenceServers.command("memory", dir) }),
      ({ host, manager }) =>
        Effect.gen(function*() {
          const client = yield* host("model")
          const offline = yield* Deferred.make<void>()
          yield* manager.changes.pipe(
            Stream.filter((change) => change.server === "memory" && change.to === "offline"),
            Stream.runForEach(() => Deferred.succeed(offline, undefined)),
            Effect.forkScoped
          )
          const memory = yield* Effect.orDie(manager.client("memory"))
          yield* memory.forceClose
          yield* Deferred.await(offline)
          const names = (yield* client.listTools()).tools.map((t) => t.name)
          assert.include(names, "memory__read_graph", "kept for the grace period")
          const answer = yield* client.callTool("memory__read_graph", {})
          assert.isTrue(answer.isError)
          assert.include(textOf(answer), "memory: offline")
          assert.include(textOf(answer), "fleet_status")
          const status = textOf(yield* client.callTool("fleet_status", {}))
          assert.include(status, "memory: offline")
          assert.include(status, "conformance: ready")
        }).pipe(Effect.scoped)
    ))
})
