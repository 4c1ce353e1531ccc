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
import type { Frame } from "../wire/Transport.ts"
import * as JsonRpc from "./JsonRpc.ts"
import type { PendingTable } from "./PendingTable.ts"
import type { Redactor } from "./Redactor.ts"

/**
 * Why a request got an error reply: no handler (`unhandled`), bad params (`invalid`), the host said no
 * (`refused`), the handler failed, died or answered something invalid (`failed`), or took too long (`timedOut`).
 */
export interface Failure {
  readonly kind: "unhandled" | "invalid" | "refused" | "failed" | "timedOut"
  readonly code: number
  readonly message: string
}

/** Counters of what the dispatcher skipped or refused. */
export interface Counters {
  /** JSON-RPC messages received (answers, requests, notifications), whatever became of them. */
  messages: number
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
  messages: 0,
  notJson: 0,
  invalid: 0,
  unknownId: 0,
  serverRequests: 0,
  notifications: 0,
  handlers: { answered: 0, unhandled: 0, invalid: 0, refused: 0, failed: 0, timedOut: 0, cancelled: 0 }
})

/**
 * How many lines that are not JSON get a warning each; after them, one warning at each power of ten (10, 100,
 * 1000…) gives the count: a server printing its logs on stdout gets a handful of lines, not one per log line.
 */
export const NOT_JSON_WARNED = 3

const isPowerOfTen = (n: number): boolean => {
  let x = n
  while (x >= 10 && x % 10 === 0) x /= 10
  return x === 1 && n >= 10
}

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
    readonly answer: (method: string, params: unknown) => Effect.Effect<unknown, Failure>
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
              catch: (): Failure => ({
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
    if (msg._tag !== "NotJson" && msg._tag !== "Invalid") counters.messages++
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
      case "NotJson": {
        const n = ++counters.notJson
        if (n <= NOT_JSON_WARNED) {
          const more = n === NOT_JSON_WARNED ? " (more such lines are counted, not shown one by one)" : ""
          return config.diagnose(`skipped a message that is not JSON: ${config.redactor.excerpt(text)}${more}`)
        }
        if (isPowerOfTen(n)) {
          return config.diagnose(
            `skipped ${n} messages that are not JSON so far, against ${counters.messages} JSON-RPC ${
              counters.messages === 1 ? "message" : "messages"
            }`
          )
        }
        return
      }
    }
  }
}
