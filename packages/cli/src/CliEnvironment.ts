/**
 * What the entry point knows about the process that the commands need: its environment variables (for
 * `${VAR}` expansion in config files), the path of the running `node` (the demo starts its fake servers
 * with it), the working and home directories, and whether stderr is a terminal. Only `bin/mcp-fleet.ts` reads `process`; everything else gets these values from this service.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

/**
 * The process facts the CLI's commands use.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The environment `${VAR}` placeholders are expanded against (the entry point passes `process.env`). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The `node` executable that runs the CLI (`process.execPath`). */
  readonly execPath: string
  /** The working directory (`process.cwd()`): a relative `--config` path is resolved against it. */
  readonly cwd?: string | undefined
  /** The home directory (`os.homedir()`): what a config's `${userHome}` means. */
  readonly userHome?: string | undefined
  /**
   * Writes raw text on stderr when stderr is a terminal (`process.stderr.isTTY`), for the live progress line;
   * absent on a pipe or a file, where no progress line is drawn.
   */
  readonly terminalStderr?: ((text: string) => void) | undefined
  /**
   * Subscribes `listener` to the stopping signals (SIGINT, SIGTERM, SIGHUP) that arrive after the first one (the
   * first stops the command; a second one while servers shut down kills them at once); returns the unsubscribe.
   * Absent: no second signal is listened for.
   */
  readonly onSignal?: ((listener: () => void) => () => void) | undefined
}

/**
 * The CLI's view of its process.
 *
 * @since 0.1.0
 * @category services
 */
export class CliEnvironment extends Context.Service<CliEnvironment, Service>()("@mcp-fleet/cli/CliEnvironment") {}

/**
 * Provides the process facts.
 *
 * @example
 * ```ts
 * import { CliEnvironment } from "@mcp-fleet/cli"
 *
 * const live = CliEnvironment.layer({ env: process.env, execPath: process.execPath })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (service: Service): Layer.Layer<CliEnvironment> => Layer.succeed(CliEnvironment, service)
