/**
 * Effect's own MCP client: `effect/ai` `McpClient` over its `stdio` transport.
 *
 * @since 0.0.0
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Exit, ManagedRuntime, Scope } from "effect"
import { McpClient, McpProtocol, McpSchema } from "effect/ai"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import type { ClientAdapter, ClientSession } from "../ClientAdapter.ts"
import { fiberCallLoop } from "../fiberLoop.ts"

/** One runtime with the Node services (the child-process spawner) for every session of this process. */
const runtime = ManagedRuntime.make(NodeServices.layer)

/** `callTool` takes a discovered tool; the stdio transport only reads its name, so we describe `echo` ourselves. */
const echoTool = new McpSchema.Tool({ name: "echo", inputSchema: { type: "object" } })

/**
 * Effect's `McpClient.make` over `McpClient.stdio` (protocol 2025-11-25), the way `McpClient.layerStdio` builds
 * it, but in a scope this adapter closes itself. The spawner is wrapped only to learn the child's pid.
 *
 * Each operation is run with `Effect.runPromise`, as a Promise-based caller would; the per-call cost of that
 * (one fiber) is part of what is measured.
 *
 * @since 0.0.0
 */
const make = (fibers: boolean): ClientAdapter => ({
  id: fibers ? "effect-fibers" : "effect",
  label: fibers
    ? "effect/ai McpClient, the call loop run as Effect fibers (no Effect.runPromise per call)"
    : "effect/ai McpClient (stdio transport, protocol 2025-11-25)",
  modules: ["effect", "effect/ai", "effect/process", "@effect/platform-node/NodeServices"],
  start: async (server): Promise<ClientSession> => {
    let pid = -1
    const scope = await Effect.runPromise(Scope.make())
    const connect = Effect.gen(function*() {
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      const recording = ChildProcessSpawner.make((command) =>
        spawner.spawn(command).pipe(Effect.tap((handle) => Effect.sync(() => pid = handle.pid)))
      )
      const transport = yield* McpClient.stdio({
        command: ChildProcess.make(server.command, [...server.args]),
        protocol: McpProtocol.v2025_11_25
      }).pipe(Effect.provideService(ChildProcessSpawner.ChildProcessSpawner, recording))
      return yield* McpClient.make({ name: "bench-effect", version: "0.0.0" }).pipe(
        Effect.provideService(McpClient.Transport, transport)
      )
    })
    const exit = await runtime.runPromiseExit(connect.pipe(Scope.provide(scope)))
    if (Exit.isFailure(exit)) {
      await Effect.runPromise(Scope.close(scope, exit))
      throw new Error(`effect: McpClient did not start: ${String(exit.cause)}`)
    }
    const client = exit.value
    const call = (payload: string) =>
      client.callTool({ tool: echoTool, arguments: { payload } }).pipe(
        Effect.map((result) => {
          const block = result.content[0]
          return block?.type === "text" ? block.text : ""
        })
      )
    return {
      pid,
      call: (payload) => Effect.runPromise(call(payload)),
      ...(fibers
        ? {
          callLoop: (payload: string, concurrency: number, until: number) =>
            fiberCallLoop(call, payload, concurrency, until)
        }
        : {}),
      listAll: () => Effect.runPromise(client.listTools().pipe(Effect.map((tools) => tools.length))),
      close: () => Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
})

/** Each operation run with `Effect.runPromise`, as a Promise-based caller would. */
export const adapter: ClientAdapter = make(false)

/** The call cells' loop run as Effect fibers; everything else as `adapter`. */
export const fibersAdapter: ClientAdapter = make(true)
