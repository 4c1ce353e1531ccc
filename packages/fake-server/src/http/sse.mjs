// SSE for the HTTP fake server: one event stream with its own event log, so that a dropped
// connection can be resumed with Last-Event-ID (event ids are `<streamId>-<index>`).
export const sseHeaders = (extra = {}) => ({
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
  ...extra
})

/** Formats one SSE event. `data` may hold newlines: each line becomes its own `data:` field. */
export function formatEvent({ id, event, retry, data }) {
  let out = ""
  if (event !== undefined) out += `event: ${event}\n`
  if (id !== undefined) out += `id: ${id}\n`
  if (retry !== undefined) out += `retry: ${retry}\n`
  for (const line of data.split("\n")) out += `data: ${line}\n`
  return out + "\n"
}

/** Splits an event id into its stream id and index, or undefined when it is not one of ours. */
export function parseEventId(value) {
  const match = typeof value === "string" ? /^(s\d+)-(\d+)$/.exec(value) : null
  return match === null ? undefined : { streamId: match[1], index: Number(match[2]) }
}

/**
 * One event stream. Options:
 * - `priming`: the first connection starts with an event of empty data that has an id and `retry:`;
 * - `retry`: the `retry:` value, or undefined for none;
 * - `ids`: whether events carry ids;
 * - `dropAfter` / `resetAfter`: the first connection is ended (or its socket destroyed) after that many events;
 * - `onEnd`: called once the final event has been written and the response ended.
 */
export class EventStream {
  constructor(id, { priming = true, ids = true, retry, dropAfter = 0, resetAfter = 0, onEnd } = {}) {
    this.id = id
    this.options = { priming, ids, retry, dropAfter, resetAfter, onEnd }
    this.events = []
    this.res = undefined
    this.connections = 0
    this.written = 0 // events written on the current connection
    this.delivered = 0 // events of the log written to some connection
    this.final = false
    this.ended = false
  }

  /** Attaches a response (headers are written here) and replays the log from `from`. */
  attach(res, headers, from = 0) {
    this.connections += 1
    this.res = res
    this.written = 0
    res.writeHead(200, headers)
    res.flushHeaders()
    res.on("close", () => {
      if (this.res === res) this.res = undefined
    })
    if (this.connections === 1 && this.options.priming) {
      this.events.push({ data: "", retry: this.options.retry })
    }
    this.delivered = from
    this.flush()
  }

  /** Appends a message (JSON-RPC object) or a raw event ({ event, data }); `final` ends the stream after it. */
  send(message, { final = false, event } = {}) {
    if (this.final) return
    this.events.push({ data: typeof message === "string" ? message : JSON.stringify(message), event })
    if (final) this.final = true
    this.flush()
  }

  flush() {
    while (this.res !== undefined && this.delivered < this.events.length) {
      const index = this.delivered
      const entry = this.events[index]
      const chunk = formatEvent({ ...entry, id: this.options.ids ? `${this.id}-${index}` : undefined })
      this.delivered += 1
      this.written += 1
      if (this.connections === 1 && this.options.resetAfter > 0 && this.written >= this.options.resetAfter) {
        // Destroy the socket once this event has reached it, so the peer sees the events, then a reset.
        const res = this.res
        this.res = undefined
        res.write(chunk, () => res.socket?.destroy())
        return
      }
      this.res.write(chunk)
      if (this.connections === 1 && this.options.dropAfter > 0 && this.written >= this.options.dropAfter) {
        const res = this.res
        this.res = undefined
        res.end()
        return
      }
    }
    if (this.res !== undefined && this.final && this.delivered === this.events.length) this.end()
  }

  /** Ends the current connection, if any, and marks the stream done. */
  end() {
    if (this.ended) return
    this.ended = true
    const res = this.res
    this.res = undefined
    res?.end()
    this.options.onEnd?.()
  }
}
