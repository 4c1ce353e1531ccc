/**
 * Scripted in-memory MCP servers, run by the in-memory `FakeSpawner`: answer `initialize` (or never),
 * answer other requests from a function, see notifications, and exit when stdin closes like a real server.
 *
 * @example
 * ```ts
 * import { McpPeer } from "@mcp-fleet/testing"
 * import { Effect } from "effect"
 *
 * const layer = McpPeer.layer({
 *   onRequest: (msg) => Effect.succeed(msg.method === "tools/list" ? { tools: [] } : undefined)
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Deferred, Effect, Exit, Fiber, Queue } from "effect"
import type { Duration, Scope } from "effect"
import { TestClock } from "effect/testing"
import * as FakeSpawner from "./FakeSpawner.ts"

/**
 * A JSON-RPC message as the peer received it.
 *
 * @since 0.1.0
 * @category models
 */
export type Message = Record<string, unknown>

/**
 * How a peer behaves.
 *
 * @since 0.1.0
 * @category models
 */
export interface Script {
  /** How to answer initialize: "never", or fields of the result. Default: protocol 2025-11-25. */
  readonly initialize?:
    | "never"
    | {
      readonly protocolVersion?: string
      readonly instructions?: string
      /** The capabilities the peer declares. Default `{ tools: { listChanged: true } }`. */
      readonly capabilities?: Readonly<Record<string, unknown>>
    }
    | undefined
  /**
   * How to answer `server/discover` (the era probe a client under `protocol: "auto"` sends first): `"unknown"`
   * (the default) answers `-32601` at once, as every legacy npm server does; `"never"` leaves it unanswered (the
   * probe then waits for its deadline); `"script"` hands it to `onRequest` like any other request.
   */
  readonly discover?: "unknown" | "never" | "script" | undefined
  /** Answers one request (other than initialize); return `undefined` to leave it unanswered. */
  readonly onRequest?: ((msg: Message, peer: FakeSpawner.Peer) => Effect.Effect<unknown>) | undefined
  /** Keep running after stdin closes (a server that ignores EOF). */
  readonly ignoreEof?: boolean | undefined
  /** Sees every notification the client sends. */
  readonly onNotification?: ((msg: Message, peer: FakeSpawner.Peer) => Effect.Effect<void>) | undefined
}

/**
 * The answer a legacy server gives a method it does not know (`-32601`), such as the era probe's `server/discover`.
 *
 * @since 0.1.0
 * @category helpers
 */
export const methodNotFound = (id: unknown) => ({
  jsonrpc: "2.0",
  id,
  error: { code: -32601, message: "Method not found" }
})

const isMessage = (u: unknown): u is Message => typeof u === "object" && u !== null && !Array.isArray(u)

/** Who waits on which frame log (`awaitFrames`), woken by each frame a peer records into it. */
const frameWaiters = new WeakMap<ReadonlyArray<unknown>, Set<() => void>>()

const record = (frames: Array<unknown>, frame: unknown) => {
  frames.push(frame)
  const waiting = frameWaiters.get(frames)
  if (waiting !== undefined) { for (const wake of [...waiting]) wake() }
}

/**
 * Waits until `check` holds of a peer's frame log: checked at once, then again on each frame the peer records into
 * `frames` (a latch on the peer's own events, not on time or on counted yields).
 *
 * @example
 * ```ts
 * yield* McpPeer.awaitFrames(frames, () => frames.some((f) => isCall(f)))
 * ```
 *
 * @since 0.4.0
 * @category helpers
 */
export const awaitFrames = (frames: ReadonlyArray<unknown>, check: () => boolean): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (check()) return Effect.void
    const done = Deferred.makeUnsafe<void>()
    const wake = () => {
      if (check()) Deferred.doneUnsafe(done, Exit.void)
    }
    let waiting = frameWaiters.get(frames)
    if (waiting === undefined) frameWaiters.set(frames, waiting = new Set())
    const registered = waiting
    registered.add(wake)
    return Deferred.await(done).pipe(Effect.ensuring(Effect.sync(() => registered.delete(wake))))
  })

/**
 * Waits until the peer has received `count` messages of `method` (requests or notifications).
 *
 * @since 0.4.0
 * @category helpers
 */
export const awaitMethod = (frames: ReadonlyArray<unknown>, method: string, count = 1): Effect.Effect<void> =>
  awaitFrames(frames, () => frames.filter((f) => isMessage(f) && f.method === method).length >= count)

/**
 * Runs `script` against one spawned peer, recording every frame it receives into `frames`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const serve =
  (script: Script, frames: Array<unknown> = []) => (peer: FakeSpawner.Peer): Effect.Effect<void, never, Scope.Scope> =>
    Effect.gen(function*() {
      while (true) {
        const next = yield* Effect.result(Queue.take(peer.received))
        if (next._tag === "Failure") {
          // stdin closed: a well-behaved server exits.
          if (script.ignoreEof !== true) yield* peer.exit(0)
          return
        }
        const msg = next.success
        record(frames, msg)
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
              capabilities: init.capabilities ?? { tools: { listChanged: true } },
              serverInfo: { name: "peer", version: "1.0.0" },
              ...(init.instructions !== undefined ? { instructions: init.instructions } : {})
            }
          })
          continue
        }
        if (msg.method === "server/discover" && script.discover !== "script") {
          if (script.discover !== "never") yield* peer.send(methodNotFound(msg.id))
          continue
        }
        const result = script.onRequest ? yield* script.onRequest(msg, peer) : undefined
        if (result !== undefined) yield* peer.send({ jsonrpc: "2.0", id: msg.id, result })
      }
    })

/**
 * An in-memory spawner whose every spawn runs `serve(script)`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (script: Script, frames?: Array<unknown>, options?: FakeSpawner.Options) =>
  FakeSpawner.layer(serve(script, frames), options)

/**
 * A peer whose handle the test can reach (to exit, write raw bytes, inspect frames).
 *
 * @since 0.1.0
 * @category constructors
 */
export const controlled = (script: Script, options?: FakeSpawner.Options) =>
  Effect.gen(function*() {
    const handle = yield* Deferred.make<FakeSpawner.Peer>()
    const frames: Array<unknown> = []
    const run = serve(script, frames)
    const layer = FakeSpawner.layer(
      (peer) => Deferred.succeed(handle, peer).pipe(Effect.andThen(run(peer))),
      options
    )
    return { layer, peer: Deferred.await(handle), frames }
  })

/**
 * A `tools/call` result whose text is the JSON of `args`.
 *
 * @since 0.1.0
 * @category helpers
 */
export const echoResult = (args: unknown) => ({ content: [{ type: "text", text: JSON.stringify(args) }] })

/**
 * Runs `close` while the `TestClock` passes `duration` (enough for every grace period), and returns what `observe`
 * saw at the very moment `close` returned, not later, once the clock has moved on.
 *
 * @since 0.1.0
 * @category helpers
 */
export const closeWhileClockPasses = <A>(
  close: Effect.Effect<void>,
  observe: () => A,
  duration: Duration.Input = "1 minute"
): Effect.Effect<A> =>
  Effect.gen(function*() {
    const closing = yield* close.pipe(
      Effect.andThen(Effect.sync(observe)),
      Effect.forkChild({ startImmediately: true })
    )
    yield* TestClock.adjust(duration)
    return yield* Fiber.join(closing)
  })
