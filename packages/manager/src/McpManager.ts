/**
 * Many MCP servers behind one Effect service: lifecycle, tool discovery, supervised reconnection, a
 * five-state health ledger and one status text.
 *
 * Building the layer spawns every enabled server and registers its client before it returns; discovery
 * (`initialize` → `tools/list`) continues in background fibers. Closing the layer's scope shuts every server
 * down (in parallel) and stops every supervisor fiber.
 *
 * @example
 * ```ts
 * import { NodeServices } from "@effect/platform-node"
 * import { Effect, Layer } from "effect"
 * import { McpManager } from "@mcp-fleet/manager"
 *
 * const Fleet = McpManager.layer({
 *   servers: { memory: { command: "node", args: ["memory-server.js"] } }
 * }).pipe(Layer.provide(NodeServices.layer))
 *
 * const program = Effect.gen(function*() {
 *   const manager = yield* McpManager.McpManager
 *   yield* manager.waitForReady("memory")
 *   yield* Effect.log(manager.statusLines())
 *   return yield* manager.call("memory", "read_graph", {})
 * }).pipe(Effect.provide(Fleet))
 * ```
 *
 * @since 0.1.0
 */
import type { McpClient, McpError, Protocol, Tool } from "@mcp-fleet/transport"
import { Context, Layer } from "effect"
import type { Effect, Stream } from "effect"
import type { ChildProcessSpawner } from "effect/process"
import * as Fleet from "./internal/Fleet.ts"
import type { ServerNotReady, ServerUnavailable, UnknownServer } from "./ManagerError.ts"
import type { ManagerOptions, StateChange } from "./ManagerOptions.ts"
import type { ServerHealth } from "./ServerHealth.ts"

/**
 * The manager's operations.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The server's current client, available as soon as the layer is built (fails for unknown/disabled). */
  readonly client: (name: string) => Effect.Effect<McpClient.McpClient, UnknownServer | ServerUnavailable>
  /** An immutable snapshot of every server; each client's `isAlive` is read once. */
  readonly health: () => ReadonlyArray<ServerHealth>
  /** One server's snapshot. */
  readonly serverHealth: (name: string) => Effect.Effect<ServerHealth, UnknownServer>
  /** `ServerTool { server, tool }` of every `ready` server. */
  readonly tools: () => ReadonlyArray<Tool.ServerTool>
  /** The status text: exactly `renderStatusLines(health(), maxStatusLines)`. */
  readonly statusLines: () => string
  /**
   * Calls a tool on that server and only there. Offline, disabled and unknown servers fail at once with a
   * typed error that says why; transport errors (including `ErrIndexBuilding`) pass through unchanged. A
   * call that finds the process gone marks the server offline and starts reconnection.
   */
  readonly call: (
    server: string,
    tool: string,
    args?: Readonly<Record<string, unknown>>,
    options?: McpClient.CallOptions
  ) => Effect.Effect<Protocol.CallToolResult, UnknownServer | ServerUnavailable | McpError.CallToolError>
  /** Waits until the server is `ready`; fails if it settles otherwise. Bounded only by the caller's timeout. */
  readonly waitForReady: (name: string) => Effect.Effect<ServerHealth, UnknownServer | ServerNotReady>
  /** Stops any reconnection, closes the server and starts it afresh (attempts reset). */
  readonly restart: (name: string) => Effect.Effect<void, UnknownServer>
  /** Kills every server at once (SIGKILL) and stops every supervisor fiber. */
  readonly forceClose: Effect.Effect<void>
  /** Every state transition, from the moment the stream is run. */
  readonly changes: Stream.Stream<StateChange>
  /** The whole health snapshot, now and after every change. */
  readonly snapshots: Stream.Stream<ReadonlyArray<ServerHealth>>
}

/**
 * The manager service.
 *
 * @since 0.1.0
 * @category services
 */
export class McpManager extends Context.Service<McpManager, Service>()("@mcp-fleet/manager/McpManager") {}

/**
 * Builds the manager. Needs the `ChildProcessSpawner` service (`NodeServices.layer` in an app).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: ManagerOptions
): Layer.Layer<McpManager, never, ChildProcessSpawner.ChildProcessSpawner> =>
  Layer.effect(McpManager, Fleet.make(options))
