/**
 * Scripted in-memory MCP servers for the transport's unit tests (run through `FakeSpawner`).
 */
import { FakeSpawner } from "@mcp-fleet/testing"
import { Deferred, Effect, Queue } from "effect"
import type { Scope } from "effect"

export type Message = Record<string, unknown>

export interface PeerScript {
  /** How to answer initialize: a protocol version, "never", or a full result. Default: answer 2025-11-25. */
  readonly initialize?: "never" | { readonly protocolVersion?: string; readonly instructions?: string } | undefined
  /** Answers one request (other than initialize); return undefined to leave it unanswered. */
  readonly onRequest?: ((msg: Message, peer: FakeSpawner.Peer) => Effect.Effect<unknown | undefined>) | undefined
  /** Keep running after stdin closes (a server that ignores EOF). */
  readonly ignoreEof?: boolean | undefined
  /** Sees every notification the client sends. */
  readonly onNotification?: ((msg: Message, peer: FakeSpawner.Peer) => Effect.Effect<void>) | undefined
}

const isMessage = (u: unknown): u is Message => typeof u === "object" && u !== null && !Array.isArray(u)

/** A peer that speaks MCP as the script says and records every frame it received. */
export const mcpPeer =
  (script: PeerScript, frames: Array<unknown> = []) =>
  (peer: FakeSpawner.Peer): Effect.Effect<void, never, Scope.Scope> =>
    Effect.gen(function*() {
      while (true) {
        const next = yield* Effect.result(Queue.take(peer.received))
        if (next._tag === "Failure") {
          // stdin closed: a well-behaved server exits.
          if (script.ignoreEof !== true) yield* peer.exit(0)
          return
        }
        const msg = next.success
        frames.push(msg)
        if (!isMessage(msg)) continue
        if (msg.id === undefined) {
          if (script.onNotification) yield* script.onNotification(msg, peer)
          continue
        }
        if (msg.method === "initialize") {
          if (script.initialize === "never") continue
          const init = script.initialize ?? {}
          yield* peer.send({
            jsonrpc: "2.0",
            id: msg.id,
            result: {
              protocolVersion: init.protocolVersion ?? "2025-11-25",
              capabilities: { tools: { listChanged: true } },
              serverInfo: { name: "peer", version: "1.0.0" },
              ...(init.instructions !== undefined ? { instructions: init.instructions } : {})
            }
          })
          continue
        }
        const result = script.onRequest ? yield* script.onRequest(msg, peer) : undefined
        if (result !== undefined) yield* peer.send({ jsonrpc: "2.0", id: msg.id, result })
      }
    })

/** The in-memory spawner layer running `mcpPeer(script)`. */
export const peerLayer = (script: PeerScript, frames?: Array<unknown>, options?: FakeSpawner.Options) =>
  FakeSpawner.layer(mcpPeer(script, frames), options)

/** An echo tool result. */
export const echoResult = (args: unknown) => ({ content: [{ type: "text", text: JSON.stringify(args) }] })

/** Waits (on events, not time) until `check` holds, yielding to other fibers in between. */
export const eventually = (check: () => boolean, what: string, maxYields = 10_000): Effect.Effect<void> =>
  Effect.gen(function*() {
    for (let i = 0; i < maxYields; i++) {
      if (check()) return
      yield* Effect.yieldNow
    }
    return yield* Effect.die(new Error(`never became true: ${what}`))
  })

/** A peer whose handle the test can reach (to exit, write raw bytes, inspect frames). */
export const controlledPeer = (script: PeerScript, options?: FakeSpawner.Options) =>
  Effect.gen(function*() {
    const handle = yield* Deferred.make<FakeSpawner.Peer>()
    const frames: Array<unknown> = []
    const run = mcpPeer(script, frames)
    const layer = FakeSpawner.layer(
      (peer) => Deferred.succeed(handle, peer).pipe(Effect.andThen(run(peer))),
      options
    )
    return { layer, peer: Deferred.await(handle), frames }
  })
