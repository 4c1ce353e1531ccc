/**
 * What the server sends, handled: each inbound message goes to the dispatcher (answers settle their request,
 * server requests are answered, anything malformed is counted and reported), and each notification is routed —
 * progress to the call that asked for it, log entries to the rate-limited log, list changes to the list caches, an
 * acknowledgement to the listener and a task's status to whoever follows that task — before it is published on the
 * session's notification stream.
 *
 * `receive` runs on the wire's reading fiber, synchronously; `run` is the body of the fibers that publish what
 * could not be published at once and write the server's log entries.
 *
 * @internal
 */
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as PubSub from "effect/PubSub"
import * as Stream from "effect/Stream"
import * as Dispatch from "../internal/Dispatch.ts"
import type * as ListCache from "../internal/ListCache.ts"
import type { PendingTable } from "../internal/PendingTable.ts"
import type { Redactor } from "../internal/Redactor.ts"
import type { ServerNotification } from "../Protocol.ts"
import type { LoggingMessage } from "../ProtocolFeatures.ts"
import type { Frame } from "../wire/Transport.ts"
import type * as Settings from "./Config.ts"
import type { Completions } from "./ElicitationCompletions.ts"
import type * as Listen from "./Listen.ts"
import * as Logging from "./Logging.ts"
import * as Progress from "./Progress.ts"
import * as Publisher from "./Publisher.ts"
import type * as ServerRequest from "./ServerRequest.ts"
import type * as TaskRouter from "./TaskRouter.ts"

/** What the inbound side needs of its session. */
export interface Config {
  /** The session's settings: its name, notification buffer and replay, log rate limit. */
  readonly settings: Settings.Config
  readonly clock: Clock.Clock
  readonly redactor: Redactor
  readonly pending: PendingTable
  readonly lists: ListCache.Group
  readonly listener: Listen.Listener
  /** Hands each `notifications/tasks/status` to the task that waits for it. */
  readonly tasks: TaskRouter.TaskRouter
  /** Where `notifications/elicitation/complete` goes (to the URL-mode handler that waits for it). */
  readonly completions: Completions
  /** Sends an answer to a server request. */
  readonly send: (frame: Frame) => void
  /** A skipped message worth a warning. */
  readonly diagnose: (text: string) => void
  /** Expected noise, logged at debug level. */
  readonly note: (text: string) => void
  /** Answers server requests other than `ping` in a fiber of the session; absent, each is answered -32601. */
  readonly serve?: {
    readonly answer: (method: string, params: unknown) => Effect.Effect<unknown, ServerRequest.Failure>
    readonly run: (effect: Effect.Effect<void>) => Fiber.Fiber<void>
  } | undefined
}

/** Counters of what came in. */
export type Counters = Dispatch.Counters & Progress.Counters & Logging.Counters

/** The inbound side of one session. */
export interface Inbound {
  /** Handles one inbound message (its JSON text). */
  readonly receive: (text: string) => void
  /** The notifications, replayed then live (see `Session.notifications`). */
  readonly notifications: Stream.Stream<ServerNotification>
  /** The server's log entries that passed the rate limit. */
  readonly logMessages: Stream.Stream<LoggingMessage>
  /** A copy of the counters. */
  readonly counters: () => Counters
  /** The fibers' body: the notification overflow and the server's log, forever. */
  readonly run: Effect.Effect<void>
}

/** Builds the inbound side. */
export const make = Effect.fnUntraced(function*(config: Config) {
  const { redactor, settings } = config
  const { notificationBuffer, server } = settings
  const notifications = yield* PubSub.sliding<ServerNotification>({
    capacity: notificationBuffer,
    replay: Math.min(settings.notificationReplay, notificationBuffer)
  })
  const publisher = Publisher.make(notifications, notificationBuffer)
  const progress = Progress.router(config.pending, redactor.text)
  const serverLog = yield* Logging.make({
    server,
    clock: config.clock,
    rate: settings.logRateLimit ?? Logging.DEFAULT_RATE_LIMIT,
    scrub: redactor.text,
    scrubValue: redactor.value,
    excerpt: redactor.excerpt
  })
  const counters = Dispatch.counters()
  const receive = Dispatch.make({
    server,
    pending: config.pending,
    counters,
    publish: (notification) => {
      if (notification.method === "notifications/progress") progress.route(notification.params)
      else if (notification.method === "notifications/message") serverLog.route(notification.params)
      // The caches first: an acknowledgement resumes the listen's opener, whose next lists must be kept.
      config.lists.observe(notification.method)
      config.listener.observe(notification)
      config.tasks.observe(notification)
      config.completions.observe(notification)
      publisher.publish(notification)
    },
    send: config.send,
    diagnose: config.diagnose,
    note: config.note,
    redactor,
    serve: config.serve
  })
  return {
    receive,
    notifications: Stream.fromPubSub(notifications),
    logMessages: serverLog.messages,
    counters: () => ({
      ...counters,
      handlers: { ...counters.handlers },
      ...progress.counters,
      ...serverLog.counters
    }),
    run: Effect.asVoid(Effect.all([publisher.run, serverLog.run], { concurrency: "unbounded", discard: true }))
  } satisfies Inbound
})
