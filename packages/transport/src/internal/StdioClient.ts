/**
 * `McpClient.stdio`: an `McpSession` over the stdio transport, plus what only a process has (its pid, stderr tail,
 * exit, and `forceClose` as SIGKILL to its group).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as ClientHandlers from "../ClientHandlers.ts"
import type { StdioClient } from "../McpClient.ts"
import type { McpClientOptions } from "../McpClientOptions.ts"
import * as Options from "../McpClientOptions.ts"
import type { SpawnError } from "../McpError.ts"
import * as McpSession from "../McpSession.ts"
import * as Stdio from "../transport/Stdio.ts"
import * as Redactor from "./Redactor.ts"
import { sharedMembers } from "./SessionMembers.ts"

/** Spawns the server and returns its client at once; `initialize` continues in the background. */
export const make = (
  options: McpClientOptions
): Effect.Effect<StdioClient, SpawnError, Scope.Scope | ChildProcessSpawner.ChildProcessSpawner> =>
  Effect.gen(function*() {
    const opts = Options.resolve(options)
    // Every `Redacted` env value is replaced with `<redacted>` in whatever the client derives from server output.
    const secrets = Object.values(opts.env).flatMap((v) => (Redacted.isRedacted(v) ? [Redacted.value(v)] : []))
    // The spawn comes first, so the server starts while the session is set up.
    const { session, transport } = yield* McpSession.makeOver(
      {
        server: opts.name,
        requestTimeoutMs: opts.requestTimeoutMs,
        // A slow start is not death: readiness is bounded by the caller (the manager's `readyTimeout`), not here.
        initializeTimeoutMs: Infinity,
        clientInfo: opts.clientInfo,
        capabilities: opts.capabilities,
        maxInFlight: opts.maxInFlight,
        maxPages: opts.maxPages,
        notificationBuffer: opts.notificationBuffer,
        notificationReplay: opts.notificationReplay,
        secrets,
        handlers: yield* ClientHandlers.fromContext(options.handlers),
        protocol: opts.protocol,
        probeTimeoutMs: opts.probeTimeoutMs
      },
      Stdio.spawn(opts),
      (receiver, handle) => Stdio.attach(handle, opts, Redactor.make(secrets), receiver)
    )
    return {
      ...sharedMembers(session),
      transport: "stdio",
      url: undefined,
      pid: transport.pid,
      stderrTail: transport.stderrTail,
      exitInfo: () => Option.fromUndefinedOr(transport.exitInfo()),
      awaitExit: transport.awaitExit,
      forceClose: session.forceClose,
      stats: () => {
        const shared = session.stats()
        const own = transport.counters()
        return {
          messages: shared.messages,
          notJson: shared.notJson,
          invalid: shared.invalid,
          unknownId: shared.unknownId,
          oversize: own.oversize,
          invalidUtf8: own.invalidUtf8,
          serverRequests: shared.serverRequests + own.refusedRequests,
          notifications: shared.notifications,
          handlers: shared.handlers,
          requests: shared.requests,
          listCache: shared.listCache,
          pending: shared.pending,
          progressDelivered: shared.progressDelivered,
          progressDropped: shared.progressDropped,
          logMessages: shared.logMessages,
          logMessagesDropped: shared.logMessagesDropped,
          stderrBytes: own.stderrBytes,
          fibersDone: {
            ...own.fibersDone,
            initialize: shared.fibersDone.initialize,
            deadlines: shared.fibersDone.deadlines
          }
        }
      }
    } satisfies StdioClient
  })
