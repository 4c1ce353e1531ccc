/**
 * The base environment of every server's child process: what the application chooses to pass on from its own
 * environment, before the server's own `env`. The transport reads no environment variables itself (neither
 * `process.env` nor a `ConfigProvider`): the application provides this value, most simply with
 * `BaseEnvironment.layer(process.env)`, which keeps the `DEFAULT_VARIABLES` (and every `XDG_*`) that are set.
 *
 * Without it the base is empty and a child gets only its `env` (or, with `inheritEnv`, the whole parent
 * environment). `mcp-fleet` (the CLI) provides it from the process environment.
 *
 * @example
 * ```ts
 * import { NodeServices } from "@effect/platform-node"
 * import { Effect, Layer } from "effect"
 * import { BaseEnvironment, McpClient } from "@mcp-fleet/transport"
 *
 * const program = McpClient.make({ command: "npx", args: ["-y", "some-mcp-server"] }).pipe(
 *   Effect.scoped,
 *   Effect.provide(Layer.mergeAll(NodeServices.layer, BaseEnvironment.layer(process.env)))
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

/**
 * The variables `layer` and `pick` keep by default: the MCP reference SDK's minimal set (HOME, LOGNAME, PATH,
 * SHELL, TERM, USER), the locale (LANG, LC_ALL), TMPDIR, and what launchers such as `npx` need behind a proxy or
 * a custom certificate authority (NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, SSL_CERT_DIR, HTTP_PROXY, HTTPS_PROXY,
 * NO_PROXY, in both cases). Every variable starting with one of `DEFAULT_PREFIXES` is kept too.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_VARIABLES: ReadonlyArray<string> = [
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TERM",
  "USER",
  "LANG",
  "LC_ALL",
  "TMPDIR",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy"
]

/**
 * Prefixes of variables `layer` and `pick` keep by default: the XDG base directories (`XDG_CONFIG_HOME`,
 * `XDG_CACHE_HOME`, `XDG_RUNTIME_DIR`…).
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_PREFIXES: ReadonlyArray<string> = ["XDG_"]

/**
 * The base environment every child starts from (the server's `env` is merged over it). Default: empty.
 *
 * @since 0.1.0
 * @category services
 */
export const BaseEnvironment: Context.Reference<Readonly<Record<string, string>>> = Context.Reference(
  "@mcp-fleet/transport/BaseEnvironment",
  { defaultValue: () => ({}) }
)

/**
 * The variables of `source` that are set and named in `variables`, or start with one of `prefixes`.
 *
 * @example
 * ```ts
 * import { BaseEnvironment } from "@mcp-fleet/transport"
 *
 * BaseEnvironment.pick({ PATH: "/usr/bin", SECRET: "x", XDG_CACHE_HOME: "/c" })
 * // { PATH: "/usr/bin", XDG_CACHE_HOME: "/c" }
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const pick = (
  source: Readonly<Record<string, string | undefined>>,
  variables: ReadonlyArray<string> = DEFAULT_VARIABLES,
  prefixes: ReadonlyArray<string> = DEFAULT_PREFIXES
): Record<string, string> => {
  const names = new Set(variables)
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue
    if (names.has(name) || prefixes.some((prefix) => name.startsWith(prefix))) out[name] = value
  }
  return out
}

/**
 * Provides the base environment picked from `source` (the application passes `process.env`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  source: Readonly<Record<string, string | undefined>>,
  variables?: ReadonlyArray<string>,
  prefixes?: ReadonlyArray<string>
): Layer.Layer<never> => Layer.succeed(BaseEnvironment, pick(source, variables, prefixes))
