/**
 * How a session ends, in two steps. `signal` is synchronous: readiness moves to its end (no new request, a waiting
 * `awaitReady` settles), every pending request fails with the end's error and `awaitTerminated` completes. `close`
 * signals, ends the wire (bounded; `force`: at once) and closes the session's scope, which joins every fiber of
 * the session and of its wire. `close` runs once: a second caller waits for the first.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import type { PendingTable } from "../internal/PendingTable.ts"
import { ClientClosed } from "../McpError.ts"
import type { Link } from "./Link.ts"
import * as Readiness from "./Readiness.ts"

/** What a shutdown needs of its session. */
export interface Config {
  readonly server: string
  readonly readiness: Readiness.Cell
  readonly pending: PendingTable
  readonly link: Link
  /** The session's own scope (a child of the caller's): closing it joins every fiber. */
  readonly scope: Scope.Closeable
}

/** The end of one session. */
export interface Shutdown {
  /** Refuses new requests and fails the pending ones with `cause` (default: `ClientClosed` with `reason`). */
  readonly signal: (reason: string, cause?: Readiness.End) => void
  /** Signals, ends the wire, joins every fiber. Idempotent. */
  readonly close: (reason: string, mode?: "close" | "force", cause?: Readiness.End) => Effect.Effect<void>
  /** Completes once the session is signalled to end. */
  readonly awaitTerminated: Effect.Effect<void>
}

/** The shutdown of one session. */
export const make = (config: Config): Shutdown => {
  const { link, pending, readiness, server } = config
  const terminated = Deferred.makeUnsafe<void>()
  let closing: Deferred.Deferred<void> | undefined

  const signal = (reason: string, cause?: Readiness.End) => {
    const error = cause ?? new ClientClosed({ server, reason })
    if (!readiness.move({ _tag: "Refused", error })) return
    pending.failAll(() => error)
    Deferred.doneUnsafe(terminated, Exit.void)
  }

  const ending = Effect.fnUntraced(function*(reason: string, mode: "close" | "force") {
    yield* link.end(mode)
    yield* Scope.close(config.scope, Exit.void)
    readiness.move({ _tag: "Joined" })
    yield* Effect.logDebug(`MCP client closed (${reason})`)
  })

  const close = (reason: string, mode: "close" | "force" = "close", cause?: Readiness.End): Effect.Effect<void> =>
    Effect.uninterruptible(Effect.suspend(() => {
      if (closing !== undefined) {
        // A force while a graceful close waits for the server (a second Ctrl-C): kill it now, then wait for that
        // close, which the kill ends.
        const kill = link.kill()
        return mode === "force" && kill !== undefined && !Readiness.isJoined(readiness.get())
          ? Effect.andThen(kill, Deferred.await(closing))
          : Deferred.await(closing)
      }
      const done = Deferred.makeUnsafe<void>()
      closing = done
      signal(reason, cause)
      return ending(reason, mode).pipe(
        Effect.annotateLogs({ mcpServer: server, ...link.annotations() }),
        Effect.ensuring(Effect.sync(() => Deferred.doneUnsafe(done, Exit.void)))
      )
    }))

  return { signal, close, awaitTerminated: Deferred.await(terminated) }
}
