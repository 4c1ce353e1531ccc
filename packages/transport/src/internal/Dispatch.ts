/**
 * What the session does with each inbound message, whatever the transport: answers settle their pending request
 * by id, server requests are answered (`ping` at once; others by the client's handlers, else "method not found"),
 * notifications are published, and anything malformed is counted and reported, never thrown.
 *
 * Synchronous: it runs on the transport's reading fiber, once per message. A request for a handler runs in a fiber
 * of its own (the session's `serve.run`), so a slow handler never holds the reader; the server's
 * `notifications/cancelled` interrupts it, and then no reply is sent.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import { ProtocolError, RemoteError } from "../McpError.ts"
import type { ServerNotification } from "../Protocol.ts"
import type { Frame } from "../transport/Transport.ts"
import * as JsonRpc from "./JsonRpc.ts"
import type { PendingTable } from "./PendingTable.ts"
import type { Redactor } from "./Redactor.ts"
import type * as ServerRequest from "./ServerRequest.ts"

/** Counters of what the dispatcher skipped or refused. */
export interface Counters {
  notJson: number
  invalid: number
  unknownId: number
  serverRequests: number
  notifications: number
  /** Server requests (other than `ping`) by outcome. */
  handlers: HandlerCounters
}

/** What became of the server requests given to handlers. */
export interface HandlerCounters {
  answered: number
  /** Answered -32601: no handler for the method. */
  unhandled: number
  /** Bad params, or a mode without a handler. */
  invalid: number
  /** The host said no (sampling refused). */
  refused: number
  /** The handler failed, died, or answered something invalid. */
  failed: number
  timedOut: number
  /** The server cancelled the request before the answer. */
  cancelled: number
}

/** A fresh set of counters. */
export const counters = (): Counters => ({
  notJson: 0,
  invalid: 0,
  unknownId: 0,
  serverRequests: 0,
  notifications: 0,
  handlers: { answered: 0, unhandled: 0, invalid: 0, refused: 0, failed: 0, timedOut: 0, cancelled: 0 }
})

/** Builds the per-message handler. */
export const make = (config: {
  readonly server: string
  readonly pending: PendingTable
  readonly counters: Counters
  readonly publish: (notification: ServerNotification) => void
  readonly send: (frame: Frame) => void
  /** A skipped message worth a warning. */
  readonly diagnose: (text: string) => void
  /** Expected noise (a late answer to a request nobody waits for): logged at debug level. */
  readonly note: (text: string) => void
  /** Removes secrets from what the server wrote (text, an error's `data`) and makes its excerpts. */
  readonly redactor: Redactor
  /** Answers server requests other than `ping`; absent, each one is answered -32601 at once. */
  readonly serve?: {
    readonly answer: (method: string, params: unknown) => Effect.Effect<unknown, ServerRequest.Failure>
    /** Runs the answering effect in a fiber of the session. */
    readonly run: (effect: Effect.Effect<void>) => Fiber.Fiber<void>
  } | undefined
}) => {
  const { counters, pending, server } = config

  const settle = (id: JsonRpc.Id, exit: Exit.Exit<unknown, RemoteError>, what: string) => {
    if (pending.settle(id, exit)) return
    counters.unknownId++
    config.note(`skipped a ${what} for unknown or finished request id ${config.redactor.excerpt(JSON.stringify(id))}`)
  }

  /** Handler fibers by request id (a key of its JSON text, so `1` and `"1"` differ). */
  const running = new Map<string, Fiber.Fiber<void>>()

  const answer = (id: JsonRpc.Id, method: string, params: unknown) => {
    counters.serverRequests++
    const serve = config.serve
    if (method !== "ping" && serve !== undefined) {
      const key = JSON.stringify(id)
      if (running.has(key)) {
        counters.invalid++
        return config.diagnose(
          `skipped a server request whose id ${config.redactor.excerpt(key)} is still being answered`
        )
      }
      const fiber = serve.run(
        serve.answer(method, params).pipe(
          Effect.flatMap((result) =>
            Effect.try({
              try: () => JsonRpc.resultFrame(id, result),
              catch: (): ServerRequest.Failure => ({
                kind: "failed",
                code: -32603,
                message: "The client's answer is not JSON-serialisable."
              })
            })
          ),
          Effect.match({
            onSuccess: (text) => {
              counters.handlers.answered++
              config.send({ _tag: "Response", text })
            },
            onFailure: (failure) => {
              counters.handlers[failure.kind]++
              config.send({ _tag: "Response", text: JsonRpc.errorFrame(id, failure.code, failure.message) })
            }
          }),
          Effect.ensuring(Effect.sync(() => running.delete(key)))
        )
      )
      if (fiber.pollUnsafe() === undefined) running.set(key, fiber)
      return
    }
    if (method !== "ping") counters.handlers.unhandled++
    config.send({
      _tag: "Response",
      text: method === "ping"
        ? JsonRpc.resultFrame(id, {})
        : JsonRpc.errorFrame(id, -32601, `Method not found: ${method}`)
    })
  }

  /** The server gave up on one of its requests: its handler is interrupted and no reply is sent. */
  const cancelled = (params: unknown) => {
    if (typeof params !== "object" || params === null || !("requestId" in params)) return
    const fiber = running.get(JSON.stringify(params.requestId))
    if (fiber === undefined) return
    counters.handlers.cancelled++
    fiber.interruptUnsafe()
  }

  return (text: string): void => {
    const msg = JsonRpc.classify(text)
    switch (msg._tag) {
      case "Result":
        return settle(msg.id, Exit.succeed(msg.result), "result")
      case "Error": {
        if (msg.id === null) {
          counters.invalid++
          return config.diagnose(
            `skipped an error response without id: ${msg.code} ${config.redactor.excerpt(msg.message)}`
          )
        }
        const entry = pending.get(msg.id)
        const error = new RemoteError({
          server,
          method: entry?.method ?? "unknown",
          code: msg.code,
          remoteMessage: config.redactor.text(msg.message),
          ...(msg.hasData ? { data: config.redactor.value(msg.data) } : {})
        })
        return settle(msg.id, Exit.fail(error), "error response")
      }
      case "Request":
        return answer(msg.id, msg.method, msg.params)
      case "Notification":
        counters.notifications++
        if (msg.method === "notifications/cancelled") cancelled(msg.params)
        return config.publish({ method: msg.method, params: msg.params })
      case "Invalid": {
        counters.invalid++
        const entry = msg.id === undefined ? undefined : pending.get(msg.id)
        if (entry !== undefined) {
          pending.settle(entry.id, Exit.fail(new ProtocolError({ server, method: entry.method, detail: msg.reason })))
        }
        return config.diagnose(`skipped an invalid message (${msg.reason}): ${config.redactor.excerpt(text)}`)
      }
      case "NotJson":
        counters.notJson++
        return config.diagnose(`skipped a message that is not JSON: ${config.redactor.excerpt(text)}`)
    }
  }
}
