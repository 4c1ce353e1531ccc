/**
 * Loading the `mcpServers` config file that Claude Desktop, Cursor and VS Code use.
 *
 * @since 0.1.0
 */

/**
 * The decoded config types and `parse` / `load`.
 *
 * @since 0.1.0
 */
export * as McpConfig from "./McpConfig.ts"

/**
 * The tagged errors of config loading, and their union `ConfigError`.
 *
 * @since 0.1.0
 */
export * as ConfigError from "./ConfigError.ts"

/**
 * What loading a config noticed without refusing it: ignored keys (with a did-you-mean) and skipped entries.
 *
 * @since 0.1.0
 */
export * as ConfigWarning from "./ConfigWarning.ts"

/**
 * `${VAR}` / `${VAR:-default}` / `$$` expansion against an explicit environment record.
 *
 * @since 0.1.0
 */
export * as EnvExpansion from "./EnvExpansion.ts"

/**
 * Near-miss suggestions ("did you mean …?") for keys, server names and tool names.
 *
 * @since 0.1.0
 */
export * as DidYouMean from "./DidYouMean.ts"

/**
 * Following a config file while it is edited (debounced re-reads, invalid edits reported, never applied).
 *
 * @since 0.2.0
 */
export * as ConfigWatch from "./ConfigWatch.ts"

/**
 * How a remote server authorizes (its entry's `auth`): a pre-registered client, or a machine grant.
 *
 * @since 0.2.0
 */
export * as RemoteAuth from "./RemoteAuth.ts"
