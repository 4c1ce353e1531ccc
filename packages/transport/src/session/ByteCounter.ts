/**
 * `mcp_fleet.bytes.sent` / `mcp_fleet.bytes.received` (UTF-8 bytes of JSON-RPC messages, per server), counted only
 * when telemetry is on: without it the session's outlet and receiver are used as they are.
 *
 * @internal
 */
import type * as Context from "effect/Context"
import type { Outlet } from "../internal/PendingTable.ts"
import * as Telemetry from "../Telemetry.ts"

/** Counts one server's traffic into `context`'s metric registry. */
export interface ByteCounter {
  readonly sent: (text: string) => void
  readonly received: (text: string) => void
}

/** The UTF-8 length of `text`, without encoding it. */
export const utf8Length = (text: string): number => {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

export const make = (server: string, context: Context.Context<never>): ByteCounter => {
  const sent = Telemetry.bytesSent(server)
  const received = Telemetry.bytesReceived(server)
  return {
    sent: (text) => sent.updateUnsafe(utf8Length(text), context),
    received: (text) => received.updateUnsafe(utf8Length(text), context)
  }
}

/** `outlet`, counting what it sends (itself when there is no counter). */
export const outlet = (counter: ByteCounter | undefined, outlet: Outlet): Outlet =>
  counter === undefined ? outlet : {
    request: (id, method, text, headers) => {
      counter.sent(text)
      outlet.request(id, method, text, headers)
    },
    send: (frame) => {
      counter.sent(frame.text)
      outlet.send(frame)
    },
    abandon: outlet.abandon
  }

/** `message`, counting what it receives (itself when there is no counter). */
export const receiving = (counter: ByteCounter | undefined, message: (text: string) => void) =>
  counter === undefined ? message : (text: string) => {
    counter.received(text)
    message(text)
  }
