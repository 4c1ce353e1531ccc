/**
 * What the session does with each inbound message, whatever the transport: answers settle their pending request
 * by id, server requests are answered (`ping`; anything else is "method not found"), notifications are published,
 * and anything malformed is counted and reported, never thrown.
 *
 * Synchronous: it runs on the transport's reading fiber, once per message.
 *
 * @internal
 */
import * as Exit from "effect/Exit"
import { ProtocolError, RemoteError } from "../McpError.ts"
import type { ServerNotification } from "../Protocol.ts"
import type { Frame } from "../transport/Transport.ts"
import * as JsonRpc from "./JsonRpc.ts"
import type { PendingTable } from "./PendingTable.ts"

/** Counters of what the dispatcher skipped or refused. */
export interface Counters {
  notJson: number
  invalid: number
  unknownId: number
  serverRequests: number
  notifications: number
}

/** A fresh set of counters. */
export const counters = (): Counters => ({ notJson: 0, invalid: 0, unknownId: 0, serverRequests: 0, notifications: 0 })

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
  /** Removes secrets from text the server wrote before it goes into an error. */
  readonly scrub: (text: string) => string
  /** The same for a JSON value (an error's `data`). */
  readonly scrubValue: (value: unknown) => unknown
}) => {
  const { counters, pending, server } = config

  const settle = (id: JsonRpc.Id, exit: Exit.Exit<unknown, RemoteError>, what: string) => {
    if (pending.settle(id, exit)) return
    counters.unknownId++
    config.note(`skipped a ${what} for unknown or finished request id ${JsonRpc.excerpt(JSON.stringify(id))}`)
  }

  const answer = (id: JsonRpc.Id, method: string) => {
    counters.serverRequests++
    config.send({
      _tag: "Response",
      text: method === "ping"
        ? JsonRpc.resultFrame(id, {})
        : JsonRpc.errorFrame(id, -32601, `Method not found: ${method}`)
    })
  }

  return (text: string): void => {
    const msg = JsonRpc.classify(text)
    switch (msg._tag) {
      case "Result":
        return settle(msg.id, Exit.succeed(msg.result), "result")
      case "Error": {
        if (msg.id === null) {
          counters.invalid++
          return config.diagnose(`skipped an error response without id: ${msg.code} ${JsonRpc.excerpt(msg.message)}`)
        }
        const entry = pending.get(msg.id)
        const error = new RemoteError({
          server,
          method: entry?.method ?? "unknown",
          code: msg.code,
          remoteMessage: config.scrub(msg.message),
          ...(msg.hasData ? { data: config.scrubValue(msg.data) } : {})
        })
        return settle(msg.id, Exit.fail(error), "error response")
      }
      case "Request":
        return answer(msg.id, msg.method)
      case "Notification":
        counters.notifications++
        return config.publish({ method: msg.method, params: msg.params })
      case "Invalid": {
        counters.invalid++
        const entry = msg.id === undefined ? undefined : pending.get(msg.id)
        if (entry !== undefined) {
          pending.settle(entry.id, Exit.fail(new ProtocolError({ server, method: entry.method, detail: msg.reason })))
        }
        return config.diagnose(`skipped an invalid message (${msg.reason}): ${JsonRpc.excerpt(config.scrub(text))}`)
      }
      case "NotJson":
        counters.notJson++
        return config.diagnose(`skipped a message that is not JSON: ${JsonRpc.excerpt(config.scrub(text))}`)
    }
  }
}
