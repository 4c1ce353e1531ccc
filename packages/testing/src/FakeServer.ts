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
import * as Vocabulary from "@mcp-fleet/fake-server"

/**
 * The absolute path of the server, `@mcp-fleet/fake-server`'s `src/server.mjs`.
 *
 * @since 0.1.0
 * @category constants
 */
export const serverPath: string = Vocabulary.serverPath

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
export const modeEnvVar: string = Vocabulary.modeEnvVar

/**
 * A behaviour switch of the fake server. Several modes combine. The list is `@mcp-fleet/fake-server`'s
 * `modes`; see the package README for what each one does.
 *
 * @since 0.1.0
 * @category models
 */
export type Mode = (typeof Vocabulary.modes)[number]

/**
 * Every {@link Mode}, in README order.
 *
 * @since 0.1.0
 * @category constants
 */
export const modes: ReadonlyArray<Mode> = Vocabulary.modes

/**
 * The name of a numeric option (`tools`, `pageSize`, `crashAfter`, …), as listed by
 * `@mcp-fleet/fake-server`'s `numberOptions`, which also gives its token and default.
 *
 * @since 0.1.0
 * @category models
 */
export type NumberOption = keyof typeof Vocabulary.numberOptions

/**
 * Options for {@link command}. Numbers are non-negative integers; durations are milliseconds. The
 * server itself validates every token: a bad value makes it exit with code 2 and a stderr line that
 * names the token.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends Partial<Record<NumberOption, number | undefined>> {
  /** The modes to combine (default: none, which behaves as `plain`). */
  readonly modes?: ReadonlyArray<Mode> | undefined
  /** `protocol=<version>`: answer initialize with exactly this protocol version. */
  readonly protocol?: string | undefined
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

// The own keys of a table, typed as its keys (`for…in` over a type parameter gives them that type).
const keysOf = <T extends object>(table: T): ReadonlyArray<Extract<keyof T, string>> => {
  const keys: Array<Extract<keyof T, string>> = []
  for (const key in table) if (Object.hasOwn(table, key)) keys.push(key)
  return keys
}
const numberOptionNames = keysOf(Vocabulary.numberOptions)
const { protocol, runId } = Vocabulary.stringOptions

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
  for (const key of numberOptionNames) {
    const value = options[key]
    if (value !== undefined) out.push(`${Vocabulary.numberOptions[key].token}=${String(value)}`)
  }
  if (options.protocol !== undefined) out.push(`${protocol.token}=${options.protocol}`)
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
  const id = process.env[runIdEnvVar]
  const runToken = id === undefined || id === "" ? [] : [`${runId.token}=${id}`]
  const viaEnv = options.tokensVia === "env"
  return {
    command: process.execPath,
    args: [serverPath, ...(viaEnv ? [] : serverTokens), ...runToken],
    env: { ...options.env, ...(viaEnv ? { [modeEnvVar]: serverTokens.join(" ") } : {}) }
  }
}
