/**
 * One status page's event stream (Server-Sent Events), from the gateway's own streams:
 *
 * - `retry: 1000` first: a browser that loses the stream tries again after a second;
 * - a `state` event for the manager's health snapshot when the stream opens and after every change (the manager's
 *   `snapshots`: a slow reader skips to the latest);
 * - a `metrics` event (hosts, calls) when the stream opens, then after activity (a call ended, a host came or went,
 *   the window aged) at most once per `METRICS_EVERY`, and only when it says something new;
 * - a comment line every `HEARTBEAT`, so that a connection that died silently is noticed by the browser;
 * - the end, once `closed` completes (the gateway is shutting down).
 *
 * Time is the `Clock`'s (the throttle, the heartbeat), so `TestClock` drives it.
 *
 * @internal
 */
import type { ServerHealth } from "@mcp-fleet/manager"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as StatusView from "./StatusView.ts"

/** At most one `metrics` event per this. */
export const METRICS_EVERY = "1 second"
/** How often an open stream gets a comment line. */
export const HEARTBEAT = "15 seconds"

/** What a page's stream is made of. */
export interface Sources {
  /** The manager's health, now and after every change. */
  readonly snapshots: Stream.Stream<ReadonlyArray<ServerHealth.ServerHealth>>
  /** A signal each time the metrics may have changed (one subscription per page; sliding, so bursts collapse). */
  readonly activity: Stream.Stream<void>
  /** The metrics as they are now. */
  readonly metrics: Effect.Effect<StatusView.MetricsEvent>
  /** Completes when the stream must end. */
  readonly closed: Effect.Effect<void>
}

const encoder = new TextEncoder()

/** One SSE event. */
export const encode = (name: string, data: unknown): Uint8Array =>
  encoder.encode(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`)

/** The event stream of one page. */
export const stream = (sources: Sources): Stream.Stream<Uint8Array> => {
  const state = sources.snapshots.pipe(
    Stream.mapEffect((healths) => Effect.map(Clock.currentTimeMillis, (now) => StatusView.state(healths, now))),
    Stream.map((event) => encode("state", event))
  )
  const metrics = Stream.concat(Stream.succeed(undefined), sources.activity).pipe(
    Stream.throttle({ cost: () => 1, units: 1, duration: METRICS_EVERY, strategy: "shape" }),
    Stream.mapEffect(() => sources.metrics),
    // Sent only when something other than the clock changed.
    Stream.map((event) => ({ key: JSON.stringify({ ...event, now: 0 }), event })),
    Stream.changesWith((a, b) => a.key === b.key),
    Stream.map(({ event }) => encode("metrics", event))
  )
  const heartbeat = Stream.tick(HEARTBEAT).pipe(
    Stream.drop(1),
    Stream.map(() => encoder.encode(": keep-alive\n\n"))
  )
  return Stream.concat(
    Stream.succeed(encoder.encode("retry: 1000\n\n")),
    Stream.mergeAll([state, metrics, heartbeat], { concurrency: "unbounded" })
  ).pipe(Stream.interruptWhen(sources.closed))
}
