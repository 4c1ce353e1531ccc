/**
 * Builds the command line for the fake MCP server (`fake-server/server.mjs`), a real stdio MCP
 * server in plain JavaScript whose behaviour is chosen by mode tokens. Tests use this module
 * instead of assembling paths and tokens by hand.
 *
 * @example
 * ```ts
 * import { FakeServer } from "@mcp-fleet/testing"
 *
 * const { command, args, env } = FakeServer.command({ modes: ["tools-list-paged"], tools: 50, pageSize: 10 })
 * // command = process.execPath, args = [FakeServer.serverPath, "tools-list-paged", "tools=50", "page-size=10"]
 * ```
 *
 * @since 0.1.0
 */
import { createRequire } from "node:module"

/**
 * The absolute path of `fake-server/server.mjs` (resolved through the package's own
 * `./fake-server` export, so it is right from `src/` and from `dist/`).
 *
 * @since 0.1.0
 * @category constants
 */
export const serverPath: string = createRequire(import.meta.url).resolve("@mcp-fleet/testing/fake-server")

/**
 * The environment variable that carries a test run's id. When it is set (the leak guard's vitest
 * `globalSetup` sets it), {@link command} adds a `run-id=<id>` token, so the leak guard can tell this
 * run's servers from those of another run on the same machine.
 *
 * @since 0.1.0
 * @category constants
 */
export const runIdEnvVar = "MCP_FLEET_TEST_RUN_ID"

/**
 * The environment variable the server reads mode tokens from (space separated), in addition to its
 * arguments.
 *
 * @since 0.1.0
 * @category constants
 */
export const modeEnvVar = "FAKE_MCP_MODE"

/**
 * A behaviour switch of the fake server. Several modes combine. See the package README for what
 * each one does.
 *
 * @since 0.1.0
 * @category models
 */
export type Mode =
  | "plain"
  | "junk-first"
  | "reverse"
  | "slow"
  | "hang"
  | "die-on-call"
  | "tools-list"
  | "tools-list-paged"
  | "tools-list-endless"
  | "empty-list"
  | "list-changed"
  | "slow-list"
  | "no-initialize"
  | "ignore-sigterm"
  | "grandchild"
  | "stderr-flood"
  | "huge-line"
  | "annotations"

/**
 * Every {@link Mode}, in README order.
 *
 * @since 0.1.0
 * @category constants
 */
export const modes: ReadonlyArray<Mode> = [
  "plain",
  "junk-first",
  "reverse",
  "slow",
  "hang",
  "die-on-call",
  "tools-list",
  "tools-list-paged",
  "tools-list-endless",
  "empty-list",
  "list-changed",
  "slow-list",
  "no-initialize",
  "ignore-sigterm",
  "grandchild",
  "stderr-flood",
  "huge-line",
  "annotations"
]

/**
 * Options for {@link command}. Numbers are non-negative integers; durations are milliseconds. The
 * server itself validates every token: a bad value makes it exit with code 2 and a stderr line that
 * names the token.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The modes to combine (default: none, which behaves as `plain`). */
  readonly modes?: ReadonlyArray<Mode> | undefined
  /** `tools=N`: number of synthetic tools `tool_1…tool_N` (default 2). */
  readonly tools?: number | undefined
  /** `page-size=N`: tools per page in `tools-list-paged` (default 3). */
  readonly pageSize?: number | undefined
  /** `batch=N`: how many tools/call requests `reverse` holds before answering (default 4). */
  readonly batch?: number | undefined
  /** `delay=ms`: the delay of every answer in `slow` (default 200). */
  readonly delay?: number | undefined
  /** `change-after=ms`: wait after `notifications/initialized` in `list-changed` (default 50). */
  readonly changeAfter?: number | undefined
  /** `burst=N`: list_changed notifications per change (default 1). */
  readonly burst?: number | undefined
  /** `list-delay=ms`: the delay of tools/list answers in `slow-list` (default 500). */
  readonly listDelay?: number | undefined
  /** `flood-bytes=N`: bytes written to stderr by `stderr-flood` (default 8 MiB). */
  readonly floodBytes?: number | undefined
  /** `huge-bytes=N`: length of the tools/call answer line in `huge-line` (default 16 MiB). */
  readonly hugeBytes?: number | undefined
  /** `crash-after=N`: exit with code 4 on receiving the N-th request (N ≥ 1). */
  readonly crashAfter?: number | undefined
  /** `protocol=<version>`: answer initialize with exactly this protocol version. */
  readonly protocol?: string | undefined
  /** `init-delay=ms`: delay of the initialize answer (default 0). */
  readonly initDelay?: number | undefined
  /** `exit-code=N`: the exit code at stdin EOF and the `exit` tool's default (default 0). */
  readonly exitCode?: number | undefined
  /** Pass the tokens as arguments (default) or in the `FAKE_MCP_MODE` environment variable. */
  readonly tokensVia?: "args" | "env" | undefined
  /** Extra environment variables for the server. */
  readonly env?: Readonly<Record<string, string>> | undefined
}

/**
 * What a test needs to start the fake server: the executable, its arguments, and the complete
 * environment of the child (nothing is inherited unless the caller merges the parent's in).
 *
 * @since 0.1.0
 * @category models
 */
export interface Command {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
}

const numberTokens: ReadonlyArray<readonly [keyof Options, string]> = [
  ["tools", "tools"],
  ["pageSize", "page-size"],
  ["batch", "batch"],
  ["delay", "delay"],
  ["changeAfter", "change-after"],
  ["burst", "burst"],
  ["listDelay", "list-delay"],
  ["floodBytes", "flood-bytes"],
  ["hugeBytes", "huge-bytes"],
  ["crashAfter", "crash-after"],
  ["initDelay", "init-delay"],
  ["exitCode", "exit-code"]
]

/**
 * The server tokens for `options`, in a stable order: modes first, then `key=value` options.
 *
 * @example
 * ```ts
 * FakeServer.tokens({ modes: ["slow"], delay: 50 }) // ["slow", "delay=50"]
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const tokens = (options: Options = {}): ReadonlyArray<string> => {
  const out: Array<string> = [...(options.modes ?? [])]
  for (const [key, token] of numberTokens) {
    const value = options[key]
    if (value !== undefined) out.push(`${token}=${String(value)}`)
  }
  if (options.protocol !== undefined) out.push(`protocol=${options.protocol}`)
  return out
}

/**
 * The command that starts the fake server with `options`: `command` is `process.execPath`, `args`
 * is `[serverPath, …tokens]` (plus `run-id=<id>` when {@link runIdEnvVar} is set in this process), and
 * `env` holds only `options.env` (and `FAKE_MCP_MODE` when `tokensVia` is `"env"`).
 *
 * @example
 * ```ts
 * const spec = FakeServer.command({ modes: ["tools-list-paged"], tools: 50, pageSize: 10 })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const command = (options: Options = {}): Command => {
  const serverTokens = tokens(options)
  const runId = process.env[runIdEnvVar]
  const runToken = runId === undefined || runId === "" ? [] : [`run-id=${runId}`]
  const viaEnv = options.tokensVia === "env"
  return {
    command: process.execPath,
    args: [serverPath, ...(viaEnv ? [] : serverTokens), ...runToken],
    env: { ...options.env, ...(viaEnv ? { [modeEnvVar]: serverTokens.join(" ") } : {}) }
  }
}
