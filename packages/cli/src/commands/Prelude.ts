/**
 * What every one-shot command does before its own work, once: start the servers of the config file
 * (`OneShot.run`), wait until the ones it needs have settled (or `--wait` has passed), stop the progress line, and,
 * when it needs one server, fail with why that server is not usable (`ServerNotUsable`, explained). The command's own
 * work then runs with the session, the wait as text for its explanations, and the servers that had not settled.
 *
 * @since 0.4.0
 */
import type { ConfigError, McpConfig } from "@mcp-fleet/config"
import type { ServerHealth } from "@mcp-fleet/manager"
import type { ClientHandlers } from "@mcp-fleet/transport"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import type * as Path from "effect/Path"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type { CliEnvironment } from "../CliEnvironment.ts"
import type { ServerNotConfigured, ServerNotUsable } from "../CliError.ts"
import * as DurationText from "../DurationText.ts"
import * as FleetConfig from "../FleetConfig.ts"
import * as OneShot from "../OneShot.ts"
import { awaitServer, awaitSettled, isStateSettled } from "../Settle.ts"

/**
 * Which servers the command needs settled.
 *
 * @since 0.4.0
 * @category models
 */
export type Target =
  /** Every server of the file (`status`), each waited for until `settled` holds (default `Settle.isSettled`). */
  | { readonly _tag: "All"; readonly settled?: ((h: ServerHealth.ServerHealth) => boolean) | undefined }
  /**
   * Every server of the file (`tools`, `prompts`, `resources`), each waited for until `settled` holds (default
   * `Settle.isSettled`); `only`, when given, must then be ready.
   */
  | {
    readonly _tag: "Fleet"
    readonly only: Option.Option<string>
    readonly settled?: ((h: ServerHealth.ServerHealth) => boolean) | undefined
  }
  /** One server (`call`, `prompt`, `read`), waited for until its state settles; it must then be ready or degraded. */
  | { readonly _tag: "Server"; readonly server: string }

/**
 * The session of a command whose servers have settled.
 *
 * @since 0.4.0
 * @category models
 */
export interface Settled extends OneShot.Session {
  /** The wait, as text for explanations ("5s"). */
  readonly waited: string
  /** The servers that had not settled when the wait ended (a `Fleet` target's; empty otherwise). */
  readonly unsettled: ReadonlyArray<ServerHealth.ServerHealth>
}

/**
 * The config file, narrowed to `only` when it is given (`ServerNotConfigured` when the file has no such server).
 *
 * @since 0.4.0
 * @category loading
 */
export const load = (
  config: string,
  only: Option.Option<string> = Option.none()
): Effect.Effect<
  McpConfig.McpConfig,
  ConfigError.ConfigError | ServerNotConfigured,
  CliEnvironment | FileSystem.FileSystem
> =>
  Effect.flatMap(
    FleetConfig.load(config),
    (loaded) => Option.isSome(only) ? FleetConfig.only(loaded, only.value) : Effect.succeed(loaded)
  )

/** What `run` takes. */
interface Options<T extends Target> {
  readonly file: McpConfig.McpConfig
  readonly verbose: boolean
  readonly wait: Duration.Duration
  readonly target: T
  /** What answers the servers' requests (the manager's fleet-wide handlers). */
  readonly handlers?: ClientHandlers.ClientHandlers | undefined
}

type Needs = CliEnvironment | ChildProcessSpawner.ChildProcessSpawner | FileSystem.FileSystem | Path.Path

/**
 * Starts the servers of `file`, settles `target` within `wait`, then runs `use`; the servers are shut down when it
 * ends, fails or is interrupted.
 *
 * @since 0.4.0
 * @category running
 */
export function run<A, E, R>(
  options: Options<Extract<Target, { readonly _tag: "All" }>>,
  use: (session: Settled) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | Needs>
export function run<A, E, R>(
  options: Options<Exclude<Target, { readonly _tag: "All" }>>,
  use: (session: Settled) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | ServerNotUsable, R | Needs>
export function run<A, E, R>(
  options: Options<Target>,
  use: (session: Settled) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | ServerNotUsable, R | Needs> {
  const { target, wait } = options
  const waited = DurationText.format(wait)
  return OneShot.run(options.file, options.verbose, (session) =>
    Effect.gen(function*() {
      const { manager } = session
      let unsettled: ReadonlyArray<ServerHealth.ServerHealth> = []
      if (target._tag === "Server") {
        yield* awaitServer(manager, target.server, isStateSettled, wait)
      } else {
        unsettled = yield* awaitSettled(manager, wait, target.settled)
      }
      yield* session.diagnostics.stop
      if (target._tag === "Server") yield* session.requireReady(target.server, waited, ["ready", "degraded"])
      else if (target._tag === "Fleet" && Option.isSome(target.only)) {
        yield* session.requireReady(target.only.value, waited)
      }
      return yield* use({ ...session, waited, unsettled })
    }), options.handlers)
}
