/**
 * Following a config file while it is edited: every settled edit, re-read and decoded.
 *
 * The file's directory is watched (`FileSystem.watch`), so an editor that replaces the file by renaming a new
 * one over it is followed too. Events for the file are debounced (a save is often several writes), then the file
 * is loaded with `McpConfig.load`. Each result is emitted, valid or not, so the consumer decides: apply a valid
 * config, report an invalid one and keep what runs. A half-written file is a decode error like any other, so it
 * never reaches the consumer as a config. The same error twice in a row is emitted once.
 *
 * @example
 * ```ts
 * import { ConfigWatch } from "@mcp-fleet/config"
 * import { Effect, Stream } from "effect"
 *
 * const follow = ConfigWatch.watch("mcp.json", { env: {} }).pipe(
 *   Stream.runForEach((result) =>
 *     result._tag === "Success"
 *       ? Effect.log(`${result.success.servers.length} servers`)
 *       : Effect.logWarning(result.failure.message)
 *   )
 * )
 * ```
 *
 * @since 0.2.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import type * as PlatformError from "effect/PlatformError"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import type { ConfigError } from "./ConfigError.ts"
import * as McpConfig from "./McpConfig.ts"

/**
 * Options of {@link watch}.
 *
 * @since 0.2.0
 * @category models
 */
export interface WatchOptions extends McpConfig.LoadOptions {
  /** Quiet time after the last event before the file is read. Default 200 ms. */
  readonly debounce?: Duration.Input | undefined
  /** Called once the watcher is installed (an edit before that is not seen). */
  readonly onReady?: (() => void) | undefined
}

const sameOutcome = (
  a: Result.Result<McpConfig.McpConfig, ConfigError>,
  b: Result.Result<McpConfig.McpConfig, ConfigError>
) => Result.isFailure(a) && Result.isFailure(b) && a.failure.message === b.failure.message

/**
 * Every settled edit of `path`, loaded: a stream of `Result`s that runs until interrupted. A watcher that cannot
 * be installed (the directory does not exist) ends the stream with the file system's error.
 *
 * @since 0.2.0
 * @category watching
 */
export const watch = (
  path: string,
  options: WatchOptions
): Stream.Stream<
  Result.Result<McpConfig.McpConfig, ConfigError>,
  PlatformError.PlatformError,
  FileSystem.FileSystem | Path.Path
> =>
  Stream.unwrap(Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const paths = yield* Path.Path
    const absolute = paths.resolve(path)
    const name = paths.basename(absolute)
    const load = McpConfig.load(absolute, { env: options.env, userHome: options.userHome }).pipe(
      Effect.result,
      Effect.provideService(FileSystem.FileSystem, fs)
    )
    return fs.watch(paths.dirname(absolute), options.onReady !== undefined ? { onReady: options.onReady } : {}).pipe(
      Stream.filter((event) => paths.basename(event.path) === name),
      Stream.debounce(options.debounce ?? Duration.millis(200)),
      Stream.mapEffect(() => load),
      Stream.changesWith(sameOutcome)
    )
  }))
