/**
 * mcp-fleet's own transport: `@mcp-fleet/transport` `McpClient.make` over `NodeServices.layer`.
 *
 * @since 0.0.0
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { McpClient, Telemetry } from "@mcp-fleet/transport"
// By module path, as the READMEs import: the `effect` barrel loads all of effect (the `heap` cell: 24.9 → 21.9 MB).
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import type { ClientAdapter, ClientSession } from "../ClientAdapter.ts"
import { fiberCallLoop } from "../fiberLoop.ts"

/** One runtime with the Node services (the child-process spawner) for every session of this process. */
const runtime = ManagedRuntime.make(NodeServices.layer)
/** The same, with `Telemetry.layer()`: a span (Effect's own tracer, no exporter) and metrics for every request. */
const tracedRuntime = ManagedRuntime.make(Layer.merge(NodeServices.layer, Telemetry.layer()))

/**
 * `McpClient.make` in a scope this adapter closes itself: `start` resolves once `awaitReady` has succeeded
 * (initialize answered, `notifications/initialized` queued). `close` closes the scope, which is the client's
 * graceful shutdown (end stdin → grace → SIGTERM → SIGKILL to the process group, then every fiber joined).
 *
 * Each operation is run with `Effect.runPromise`, as a Promise-based caller would; the per-call cost of that
 * (one fiber) is part of what is measured, exactly as for the `effect` column.
 *
 * @since 0.0.0
 */
const make = (fibers: boolean, variant?: "traced" | "auto"): ClientAdapter => ({
  id: variant === "traced" ? "fleet-traced" : variant === "auto" ? "fleet-auto" : fibers ? "fleet-fibers" : "fleet",
  label: variant === "traced"
    ? "@mcp-fleet/transport McpClient with Telemetry.layer() (a span and metrics per request, Effect's tracer)"
    : variant === "auto"
    ? "@mcp-fleet/transport McpClient with protocol: auto, the default (server/discover first, then initialize)"
    : fibers
    ? "@mcp-fleet/transport McpClient, the call loop run as Effect fibers (no Effect.runPromise per call)"
    : "@mcp-fleet/transport McpClient (stdio, NodeServices spawner, protocol: legacy)",
  // What a program needs to run a client: the transport and a ChildProcessSpawner (it no longer loads the effect
  // barrel, so neither is it listed here). `modules` is the transport as published (the JavaScript `tsc -b` builds
  // into dist/, which `pnpm bench` runs first); `sourceModules` the workspace's .ts sources, type-stripped by Node.
  modules: [
    new URL("../../../packages/transport/dist/src/index.js", import.meta.url).href,
    "@effect/platform-node/NodeServices"
  ],
  sourceModules: ["@mcp-fleet/transport", "@effect/platform-node/NodeServices"],
  start: async (server): Promise<ClientSession> => {
    const scope = await Effect.runPromise(Scope.make())
    const connect = Effect.gen(function*() {
      const client = yield* McpClient.make({
        command: server.command,
        args: server.args,
        name: "bench-echo",
        // `auto` is the default; the other columns pin the legacy era, so that `fleet-auto` beside `fleet` in the
        // startup cells is the era probe's cost against a legacy server, in one run.
        protocol: variant === "auto" ? "auto" : "legacy"
      })
      yield* client.awaitReady
      return client
    })
    const exit = await (variant === "traced" ? tracedRuntime : runtime).runPromiseExit(
      connect.pipe(Scope.provide(scope))
    )
    if (Exit.isFailure(exit)) {
      await Effect.runPromise(Scope.close(scope, exit))
      throw new Error(`fleet: McpClient did not start: ${String(exit.cause)}`)
    }
    const client = exit.value
    const call = (payload: string) =>
      client.callTool("echo", { payload }).pipe(
        Effect.map((result) => {
          const block = result.content[0]
          return block !== undefined && block.type === "text" && typeof block["text"] === "string"
            ? block["text"]
            : ""
        })
      )
    return {
      pid: client.pid,
      call: (payload) => Effect.runPromise(call(payload)),
      ...(fibers
        ? {
          callLoop: (payload: string, concurrency: number, until: number) =>
            fiberCallLoop(call, payload, concurrency, until)
        }
        : {}),
      listAll: () => Effect.runPromise(client.listTools().pipe(Effect.map((list) => list.tools.length))),
      close: () => Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
})

/** Each operation run with `Effect.runPromise`, as a Promise-based caller would. */
export const adapter: ClientAdapter = make(false)

/** The call cells' loop run as Effect fibers; everything else as `adapter`. */
export const fibersAdapter: ClientAdapter = make(true)

/** `adapter` with telemetry on: the traced request path, next to the untraced one in the same run. */
export const tracedAdapter: ClientAdapter = make(false, "traced")

/** The era probe's cost at startup: `server/discover` first against the legacy echo server (`-32601` at once). */
export const autoAdapter: ClientAdapter = { ...make(false, "auto"), cells: ["lifecycle", "cold-lifecycle"] }
