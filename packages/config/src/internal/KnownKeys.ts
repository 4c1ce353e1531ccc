/**
 * The keys a server entry may carry, by kind, the keys other hosts use that mcp-fleet ignores, and the
 * did-you-mean for the rest.
 *
 * @since 0.1.0
 */
import * as DidYouMean from "../DidYouMean.ts"

/**
 * Keys of a stdio entry that mcp-fleet reads.
 *
 * @since 0.1.0
 * @category keys
 */
export const STDIO_KEYS: ReadonlyArray<string> = [
  "type",
  "command",
  "args",
  "env",
  "envFile",
  "cwd",
  "disabled",
  "timeout",
  "curated",
  "requestTimeoutMs",
  "inheritEnv"
]

/**
 * Keys of a remote (`url`) entry that mcp-fleet reads.
 *
 * @since 0.1.0
 * @category keys
 */
export const REMOTE_KEYS: ReadonlyArray<string> = [
  "type",
  "url",
  "headers",
  "disabled",
  "timeout",
  "curated",
  "requestTimeoutMs",
  "auth"
]

/**
 * Keys that Cursor, Cline, Roo Code, Windsurf, Gemini CLI or VS Code document for an entry, that mcp-fleet has no
 * use for (tool approval lists, OAuth and gallery metadata, …).
 *
 * @since 0.1.0
 * @category keys
 */
export const OTHER_HOSTS_KEYS: ReadonlySet<string> = new Set([
  "autoApprove",
  "alwaysAllow",
  "disabledTools",
  "transportType",
  "trust",
  "includeTools",
  "excludeTools",
  "description",
  "oauth",
  "authProviderType",
  "gallery",
  "version",
  "dev",
  "networkTimeout",
  "watchPaths"
])

/**
 * The known key nearest to `key` when it is a near miss (see `DidYouMean.suggest`).
 *
 * @since 0.1.0
 * @category keys
 */
export const suggest = DidYouMean.suggest
