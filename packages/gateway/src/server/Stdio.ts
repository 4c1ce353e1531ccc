/**
 * The gateway over stdio: one host, newline-delimited JSON-RPC on stdin and stdout, either era (a message whose
 * `_meta` claims 2026-07-28 is served in that era, each request on its own; anything else is the 2025 era, which
 * begins with `initialize`). Stdin's end is the host's end: its calls are cancelled and serving stops.
 *
 * Lines are framed by the transport's `LineFramer` (a line over `maxMessageBytes` is never buffered; the request it
 * held, when its id can be read, is answered with an error) and parsed by `Wire.classify`.
 *
 * @internal
 */
import { Wire } from "@mcp-fleet/transport"
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import type { Engine } from "./Engine.ts"
import type { Host } from "./Host.ts"
import * as HostModule from "./Host.ts"
import * as Incoming from "./Incoming.ts"
import * as Modern from "./Modern.ts"
import * as Rpc from "./Rpc.ts"

/** What one stdin chunk held. */
type Item =
  | { readonly _tag: "Line"; readonly text: string }
  | { readonly _tag: "Oversize"; readonly bytes: number; readonly head: string; readonly tail: string }
  | { readonly _tag: "NotUtf8" }

/** Serves one host on the process's stdin and stdout until stdin ends. */
export const serve = (
  engine: Engine,
  options: { readonly profile?: string | undefined } = {}
): Effect.Effect<void, never, Stdio.Stdio | Scope.Scope> =>
  Effect.gen(function*() {
    const stdio = yield* Stdio.Stdio
    const out = yield* Queue.unbounded<string, Cause.Done>()
    const writer = yield* Stream.fromQueue(out).pipe(
      // What is queued by the time the writer runs goes out in one write: a write per message was 11 % of the
      // gateway's CPU at 64 calls in flight (BENCHMARKS.md, issue 29).
      Stream.mapArray((lines) => [lines.join("")] as const),
      Stream.run(stdio.stdout({ endOnDone: false })),
      Effect.ignore,
      Effect.forkScoped
    )
    const write = (message: Record<string, unknown>) => Queue.offerUnsafe(out, `${JSON.stringify(message)}\n`)
    const host = HostModule.make({
      id: "stdio",
      era: "legacy",
      transport: "stdio",
      profile: options.profile,
      protocolVersion: "2025-11-25",
      push: write
    })

    const items: Array<Item> = []
    const framer = new Wire.LineFramer(engine.options.maxMessageBytes, {
      line: (text) => items.push({ _tag: "Line", text }),
      oversize: (bytes, head, tail) => items.push({ _tag: "Oversize", bytes, head, tail }),
      invalidUtf8: () => items.push({ _tag: "NotUtf8" })
    })

    /** Serves a request on its own fiber, registered for `notifications/cancelled`. */
    const request = (id: string | number, method: string, params: unknown) =>
      Effect.gen(function*() {
        const claimed = Modern.claimedVersion(params)
        let served: Host = host
        if (claimed !== undefined) {
          const envelope = Modern.envelope(params)
          if (envelope instanceof Rpc.RpcError) return write(Rpc.errorMessage(id, envelope))
          served = Incoming.modernHost(envelope, { transport: "stdio", profile: options.profile, push: write })
        }
        if (host.inFlight.has(id)) {
          return write(Rpc.errorMessage(id, Rpc.error(Rpc.INVALID_REQUEST, `Request id ${id} is already in use`)))
        }
        if (host.inFlight.size >= engine.options.maxInFlightPerHost) {
          engine.metrics.refused("in_flight")
          return write(Rpc.errorMessage(id, Rpc.error(Rpc.OVERLOADED, "Too many requests in flight; retry later.")))
        }
        const exchange = Incoming.exchange(served, id, method, params, write)
        const work: Effect.Effect<unknown, Rpc.RpcError> = method === "subscriptions/listen" && served.era === "modern"
          ? engine.listen(exchange, params, write)
          : engine.request(exchange, params).pipe(
            Effect.exit,
            Effect.flatMap((exit) => Incoming.answer(id, exit)),
            Effect.map(({ message }) => {
              write(message)
              if (method === "initialize" && !("error" in message)) host.initialized = true
            })
          )
        const fiber = yield* work.pipe(
          Effect.catch((error) => Effect.sync(() => write(Rpc.errorMessage(id, error)))),
          Effect.ensuring(Effect.sync(() => host.inFlight.delete(id))),
          Effect.forkScoped
        )
        host.inFlight.set(id, fiber)
      })

    const handle = (item: Item): Effect.Effect<void, never, Scope.Scope> => {
      if (item._tag === "NotUtf8") {
        return Effect.sync(() => write(Rpc.errorMessage(null, Incoming.malformed("the line is not UTF-8", true))))
      }
      if (item._tag === "Oversize") {
        engine.metrics.refused("size")
        const id = Wire.sniffId(item.head, item.tail)
        const error = Rpc.error(
          Rpc.INVALID_REQUEST,
          `Message of ${item.bytes} bytes is over the gateway's limit of ${engine.options.maxMessageBytes}`
        )
        return Effect.sync(() => write(Rpc.errorMessage(id ?? null, error)))
      }
      const message = Wire.classify(item.text)
      switch (message._tag) {
        case "Request":
          return Effect.asVoid(request(message.id, message.method, message.params))
        case "Notification":
          return engine.notification(host, message.method, message.params).pipe(
            Effect.andThen(message.method === "notifications/initialized" ? engine.attach(host) : Effect.void)
          )
        case "Result":
          return Effect.sync(() => void engine.response(host, message.id, { result: message.result }))
        case "Error":
          return Effect.sync(() => {
            if (message.id !== null) {
              engine.response(host, message.id, {
                error: Rpc.error(message.code, message.message, message.hasData ? message.data : undefined)
              })
            }
          })
        case "NotJson":
          return Effect.sync(() => write(Rpc.errorMessage(null, Incoming.malformed(message.reason, true))))
        case "Invalid":
          return Effect.sync(() =>
            write(Rpc.errorMessage(message.id ?? null, Incoming.malformed(message.reason, false)))
          )
      }
    }

    yield* stdio.stdin.pipe(
      Stream.runForEach((chunk) =>
        Effect.suspend(() => {
          framer.push(chunk)
          return Effect.forEach(items.splice(0), handle, { discard: true })
        })
      ),
      Effect.ignore
    )
    framer.end()
    yield* Effect.forEach(items.splice(0), handle, { discard: true })
    // Stdin ended: the host is gone. Its calls are cancelled upstream; what is already written is flushed.
    yield* engine.detach(host)
    yield* Queue.end(out)
    yield* Fiber.await(writer)
  })
