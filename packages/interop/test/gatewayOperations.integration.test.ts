/**
 * The gateway as an operator runs it (in process over HTTP, in front of the conformance fixture over stdio):
 *
 * - metrics: with `metrics: true` (and the manager's telemetry on) `/metrics` serves the registry as Prometheus text:
 *   the gateway's request durations (method, tool, error type), its gauges and refusals, and the fleet's own
 *   `mcp_fleet.servers`; without it there is no `/metrics`;
 * - a log line when a host session opens and one when it closes, with what the host said it is, its era and profile,
 *   and its counts; never its session id;
 * - graceful shutdown: closing the gateway stops taking calls (-32003) while it waits for the one in flight, which
 *   finishes with its real result; only then does the shutdown complete.
 */
import { NodeHttpClient, NodeHttpServer, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import type { GatewayOptions } from "@mcp-fleet/gateway"
import { McpGateway } from "@mcp-fleet/gateway"
import { McpManager } from "@mcp-fleet/manager"
import type { Elicitation } from "@mcp-fleet/transport"
import { McpClient, McpError, Telemetry } from "@mcp-fleet/transport"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Logger, References, Scope, Stream } from "effect"
import type { HttpClient } from "effect/http"
import { HttpServer } from "effect/http"
import { createServer } from "node:http"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { post } from "./httpRaw.ts"

const fixture = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "servers", "conformance-upstream.mjs")

const textOf = (result: { readonly content: ReadonlyArray<Record<string, unknown>> }) =>
  result.content.map((block) => String(block["text"] ?? "")).join("")

interface Line {
  readonly message: string
  readonly annotations: Readonly<Record<string, unknown>>
}

/**
 * The gateway (`options`) over HTTP in a scope of its own (`close` ends it, as a shutdown does), its log lines, and
 * a way to connect hosts (mcp-fleet's client, 2025 era) to it.
 */
const gateway = (options: GatewayOptions.GatewayOptions & { readonly telemetry?: boolean }) =>
  Effect.gen(function*() {
    const lines: Array<Line> = []
    const waiting: Array<{ readonly text: string; readonly seen: Deferred.Deferred<Line> }> = []
    const capture = Logger.make((entry) => {
      const line: Line = {
        message: (Array.isArray(entry.message) ? entry.message : [entry.message]).map(String).join(" "),
        annotations: entry.fiber.getRef(References.CurrentLogAnnotations)
      }
      lines.push(line)
      for (const waiter of waiting.splice(0)) {
        if (line.message.includes(waiter.text)) Deferred.doneUnsafe(waiter.seen, Exit.succeed(line))
        else waiting.push(waiter)
      }
    })
    const { telemetry, ...gatewayOptions } = options
    const fleet = McpGateway.layerFleet({
      servers: { upstream: { command: process.execPath, args: [fixture, "stdio"], client: { protocol: "legacy" } } }
    }, { prefix: "conditional", ...gatewayOptions })
    const stack = McpGateway.layerHttp().pipe(
      Layer.provideMerge(telemetry === true ? fleet.pipe(Layer.provide(Telemetry.layer())) : fleet),
      Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" })),
      Layer.provide(Logger.layer([capture]))
    )
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    const context = yield* Layer.build(stack).pipe(Scope.provide(scope))
    const manager = Context.get(context, McpManager.McpManager)
    yield* Effect.orDie(manager.waitForReady("upstream"))
    const address = Context.get(context, HttpServer.HttpServer).address
    const url = `http://127.0.0.1:${"port" in address ? address.port : 0}/mcp`
    const host = (name: string, elicitation?: Elicitation.Service) =>
      Effect.gen(function*() {
        const client = yield* Effect.orDie(McpClient.make({
          url,
          name,
          protocol: "legacy",
          transport: "http",
          ...(elicitation === undefined ? {} : { handlers: { elicitation } })
        }))
        yield* Effect.orDie(client.awaitReady)
        return client
      })
    /** The first log line (already written or to come) whose message contains `text`. */
    const logged = (text: string) =>
      Effect.suspend(() => {
        const found = lines.find((line) => line.message.includes(text))
        if (found !== undefined) return Effect.succeed(found)
        const seen = Deferred.makeUnsafe<Line>()
        waiting.push({ text, seen })
        return Deferred.await(seen)
      })
    return { url, host, lines, logged, manager, close: Scope.close(scope, Exit.void) }
  })

const live = <A, E>(effect: Effect.Effect<A, E, Scope.Scope | HttpClient.HttpClient>) =>
  effect.pipe(Effect.scoped, Effect.provide([NodeHttpClient.layerUndici, NodeServices.layer]))

describe("the gateway in operation", { timeout: 90_000 }, () => {
  it.live("metrics: /metrics serves the gateway's request durations, gauges, refusals and the fleet's own", () =>
    live(Effect.gen(function*() {
      const { host, url } = yield* gateway({ metrics: true, telemetry: true, maxMessageBytes: 4096 })
      const client = yield* host("metered-host")
      assert.include(textOf(yield* client.callTool("test_simple_text", {})), "simple text response")
      assert.isTrue((yield* client.callTool("test_error_handling", {})).isError)
      const tooLarge = yield* Effect.promise(() =>
        post(url, { jsonrpc: "2.0", id: 9, method: "ping", params: { pad: "x".repeat(8192) } })
      )
      assert.strictEqual(tooLarge.status, 413)
      const metrics = yield* Effect.promise(() => fetch(url.replace("/mcp", "/metrics")).then((r) => r.text()))
      const line = (pattern: RegExp) => metrics.split("\n").find((l) => pattern.test(l))
      const calls = line(
        /^mcp_server_operation_duration_count\{.*gen_ai_tool_name="test_simple_text".*\} 1$|^mcp_server_operation_duration_count\{.*mcp_method_name="tools\/call".*gen_ai_tool_name="test_simple_text".*\} 1$/
      )
      assert.isDefined(calls, `the call's duration is recorded, with its tool:\n${metrics}`)
      assert.isDefined(line(/^mcp_server_operation_duration_count\{.*error_type="tool_error".*\} 1$/), "isError")
      assert.isDefined(line(/^mcp_fleet_gateway_hosts(\{[^}]*\})? 1$/), "one host connected")
      assert.isDefined(
        line(
          /^mcp_fleet_gateway_refused_total\{.*reason="size".*\} 1$|^mcp_fleet_gateway_refused\{.*reason="size".*\} 1$/
        )
      )
      assert.isDefined(line(/^mcp_fleet_servers\{.*state="ready".*\} 1$/), "the manager's FleetMetrics")
    })))

  it.live("without metrics nothing is served at /metrics", () =>
    live(Effect.gen(function*() {
      const { url } = yield* gateway({})
      assert.strictEqual((yield* Effect.promise(() => fetch(url.replace("/mcp", "/metrics")))).status, 404)
    })))

  it.live("a log line per host session: opened (who, era, profile), closed (counts); never the session id", () =>
    live(Effect.gen(function*() {
      const { lines, logged, url } = yield* gateway({})
      const opened = yield* Effect.promise(() =>
        post(url, {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: { sampling: {} },
            clientInfo: { name: "claude-code", version: "2.1.215" }
          }
        })
      )
      const session = opened.headers.get("mcp-session-id")!
      yield* Effect.promise(() => opened.text())
      const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" }
      yield* Effect.promise(() => post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers))
      const open = yield* logged("host session opened")
      assert.deepInclude(open.annotations, {
        client: "claude-code 2.1.215",
        protocol: "2025-06-18",
        transport: "http",
        profile: "(whole fleet)",
        capabilities: "sampling"
      })
      for (const id of [2, 3]) {
        yield* Effect.promise(() =>
          post(url, {
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name: id === 2 ? "test_simple_text" : "no_such_tool", arguments: {} }
          }, headers).then((r) => r.text())
        )
      }
      yield* Effect.promise(() => fetch(url, { method: "DELETE", headers }).then((r) => r.text()))
      const closed = yield* logged("host session closed")
      assert.deepInclude(closed.annotations, { client: "claude-code 2.1.215", requests: 3, errors: 1, cancelled: 0 })
      assert.strictEqual(closed.annotations["host"], open.annotations["host"])
      assert.isNumber(closed.annotations["seconds"])
      const everything = JSON.stringify(lines)
      assert.notInclude(everything, session, "the session id is never logged")
    })))

  it.live("an upstream restart: a host's subscription is made again on the new process, and its updates keep coming", () =>
    live(Effect.gen(function*() {
      const { host, logged, manager } = yield* gateway({})
      const client = yield* host("subscriber")
      const uri = "test://watched-resource"
      yield* client.subscribeResource(uri)
      assert.deepStrictEqual(JSON.parse(textOf(yield* client.callTool("test_subscriptions", {}))), [uri])
      const before = (yield* Effect.orDie(manager.serverHealth("upstream"))).pid
      yield* Effect.orDie(manager.restart("upstream"))
      yield* Effect.orDie(manager.waitForReady("upstream"))
      assert.notStrictEqual((yield* Effect.orDie(manager.serverHealth("upstream"))).pid, before, "a new process")
      const made = yield* logged("resource subscriptions made again on the server's new connection")
      assert.deepInclude(made.annotations, { mcpServer: "upstream", subscriptions: 1, refused: 0 })
      // The new process was asked (its own list), and its update reaches the host that subscribed before.
      assert.deepStrictEqual(JSON.parse(textOf(yield* client.callTool("test_subscriptions", {}))), [uri])
      const updated = yield* Deferred.make<void>()
      yield* client.resourceUpdates(uri).pipe(
        Stream.runForEach(() => Deferred.succeed(updated, undefined)),
        Effect.forkScoped({ startImmediately: true })
      )
      yield* client.callTool("test_update_resource", {})
      yield* Deferred.await(updated)
    })))

  it.live("graceful shutdown: new calls are refused while the call in flight finishes with its result", () =>
    live(Effect.gen(function*() {
      const { close, host, logged } = yield* gateway({})
      const asked = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const waiting = yield* host("waiting-host", {
        form: (request) =>
          Deferred.succeed(asked, undefined).pipe(
            Effect.andThen(Deferred.await(release)),
            Effect.as({ action: "accept" as const, content: { response: `answered after ${request.message}` } })
          )
      })
      const other = yield* host("other-host")
      const call = yield* Effect.forkChild(waiting.callTool("test_elicitation", { message: "the shutdown began" }))
      yield* Deferred.await(asked)
      // The call is in flight upstream (its question is with the host): shut the gateway down.
      const closing = yield* Effect.forkChild(close)
      const draining = yield* logged("shutting down: waiting for the calls in flight")
      assert.strictEqual(draining.annotations["calls"], 1)
      const refused = yield* Effect.flip(other.callTool("test_simple_text", {}))
      assert.instanceOf(refused, McpError.RemoteError)
      assert.strictEqual((refused as McpError.RemoteError).code, -32003)
      assert.include((refused as McpError.RemoteError).remoteMessage, "shutting down")
      assert.isUndefined(closing.pollUnsafe(), "the shutdown waits for the call in flight")
      yield* Deferred.succeed(release, undefined)
      const result = yield* Fiber.join(call)
      assert.include(textOf(result), "answered after the shutdown began")
      yield* Fiber.join(closing)
      yield* logged("shutting down: every call in flight finished")
    })))
})
