/**
 * How long a tool name may be for the host that connected, read from its `clientInfo.name`.
 *
 * Hosts put their own prefix in front of a server's tool names and send the result to a model API that accepts
 * at most 64 characters of `[a-zA-Z0-9_-]`; some cut the name, some drop the tool, some fail the whole request.
 * The prefix holds the key under which the user configured the gateway in that host (`"mcp-fleet"` in
 * `{"mcpServers": {"mcp-fleet": {...}}}`), which the gateway cannot see: it is the `hostKey` option (default
 * {@link DEFAULT_HOST_KEY}). A longer assumed key is the safe side: names then come out a little shorter.
 *
 * **Contract**: {@link forClient} returns a length in `[NameTable.MIN_LENGTH, 64]`: the host's rule when its
 * `clientInfo.name` is known (compared without case), 64 otherwise; an `overrides` entry for that client name
 * wins. A rule that leaves less than 16 characters (a very long `hostKey`) is raised to 16 and says so
 * (`clamped`): such a host cannot show every name whole.
 *
 * The rules, with their sources:
 *
 * | host | `clientInfo.name` | rule |
 * | --- | --- | --- |
 * | Claude Code | `claude-code` | `mcp__<key>__<tool>` ≤ 64 |
 * | Claude Desktop, claude.ai | `claude-ai` | the tool name ≤ 64; the Claude Code rule is applied, as whether Desktop prefixes is not documented |
 * | Cursor | `cursor-vscode` | `<key>` + `<tool>` < 60 (59 at most) |
 * | VS Code | `Visual Studio Code`, `Visual-Studio-Code` | `mcp_<key>_` (at most 18) + `<tool>` cut at 64 |
 * | Codex | `codex-mcp-client`, `Codex` | `mcp__<key>__<tool>` ≤ 64, else Codex replaces it by a SHA-1 |
 * | any other | — | 64 |
 *
 * @since 0.1.0
 */
import { MAX_LENGTH, MIN_LENGTH } from "./NameTable.ts"

/**
 * The key users are told to give the gateway in their host's configuration.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_HOST_KEY = "mcp-fleet"

/**
 * One host's rule.
 *
 * @since 0.1.0
 * @category models
 */
export interface HostRule {
  /** The host's display name. */
  readonly host: string
  /** The `clientInfo.name` values it sends (compared without case). */
  readonly clientNames: ReadonlyArray<string>
  /** The longest tool name it takes whole, given the key the gateway is configured under. */
  readonly maxLength: (hostKey: string) => number
  /** The rule, in words. */
  readonly rule: string
  /** Where the rule comes from. */
  readonly sources: ReadonlyArray<string>
}

const claudeStyle = (hostKey: string) => MAX_LENGTH - `mcp__${hostKey}__`.length

/** VS Code's prefix: `mcp_` + the key lower-cased with other characters as `_`, at most 18 with the final `_`. */
const vscodePrefix = (hostKey: string) => {
  const safe = hostKey.toLowerCase().replace(/[^a-z0-9_.-]+/g, "_").slice(0, 18 - "mcp_".length - 1)
  return `mcp_${safe}_`.length
}

/**
 * The known hosts.
 *
 * @since 0.1.0
 * @category constants
 */
export const rules: ReadonlyArray<HostRule> = [
  {
    host: "Claude Code",
    clientNames: ["claude-code"],
    maxLength: claudeStyle,
    rule: "mcp__<key>__<tool> is at most 64 characters (the Anthropic API's limit on tool names)",
    sources: [
      "https://github.com/anthropics/claude-code/issues/2326",
      "https://github.com/mims-harvard/ToolUniverse/issues/65"
    ]
  },
  {
    host: "Claude Desktop",
    clientNames: ["claude-ai"],
    maxLength: claudeStyle,
    rule: "tool names are at most 64 characters; the Claude Code rule is applied since the prefix is not documented",
    sources: ["https://github.com/anthropics/claude-code/issues/34960", "https://github.com/mattt/emcee/issues/46"]
  },
  {
    host: "Cursor",
    clientNames: ["cursor-vscode"],
    maxLength: (hostKey) => 59 - hostKey.length,
    rule: "the server key and the tool name together stay under 60 characters, or Cursor filters the tool out",
    sources: [
      "https://github.com/ComposioHQ/composio/issues/2788",
      "https://github.com/sparfenyuk/mcp-proxy/issues/45"
    ]
  },
  {
    host: "VS Code",
    clientNames: ["Visual Studio Code", "Visual-Studio-Code"],
    maxLength: (hostKey) => MAX_LENGTH - vscodePrefix(hostKey),
    rule: "mcp_<key>_ (at most 18 characters) + the tool name, cut at 64 characters",
    sources: [
      "https://github.com/microsoft/vscode/blob/main/src/vs/workbench/contrib/mcp/common/mcpTypes.ts (McpToolName)",
      "https://github.com/microsoft/vscode/issues/243602"
    ]
  },
  {
    host: "Codex",
    clientNames: ["codex-mcp-client", "Codex"],
    maxLength: claudeStyle,
    rule: "mcp__<key>__<tool> is at most 64 characters, or Codex replaces the name by its SHA-1",
    sources: [
      "https://github.com/openai/codex/blob/main/codex-rs/core/src/mcp_connection_manager.rs (MAX_TOOL_NAME_LENGTH)",
      "https://github.com/openai/codex/issues/1289"
    ]
  }
]

/**
 * The name length chosen for one host.
 *
 * @since 0.1.0
 * @category models
 */
export interface NameLimit {
  /** The `maxLength` to give `NameTable.make`. */
  readonly maxLength: number
  /** The host whose rule applied, or `undefined` (the default 64, or an override). */
  readonly host: string | undefined
  /** Why this length, in words. */
  readonly reason: string
  /** The rule left less than `NameTable.MIN_LENGTH` and was raised to it. */
  readonly clamped: boolean
}

/**
 * The options of {@link forClient}.
 *
 * @since 0.1.0
 * @category options
 */
export interface Options {
  /** The key the gateway is configured under in the host. Default {@link DEFAULT_HOST_KEY}. */
  readonly hostKey?: string | undefined
  /** A length per `clientInfo.name` (compared without case), winning over the rules. */
  readonly overrides?: Readonly<Record<string, number>> | undefined
}

const bounded = (length: number, host: string | undefined, reason: string): NameLimit => {
  const whole = Math.floor(length)
  const maxLength = Math.min(MAX_LENGTH, Math.max(MIN_LENGTH, whole))
  return { maxLength, host, reason, clamped: whole < MIN_LENGTH }
}

/**
 * The longest tool name for the host that sent `clientInfo` (see the module's contract).
 *
 * @example
 * ```ts
 * import { HostLimits } from "@mcp-fleet/gateway"
 *
 * HostLimits.forClient({ name: "cursor-vscode" }).maxLength // 50: 59 − "mcp-fleet".length
 * HostLimits.forClient({ name: "some-agent" }).maxLength // 64
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const forClient = (
  clientInfo: { readonly name: string } | undefined,
  options: Options = {}
): NameLimit => {
  const hostKey = options.hostKey ?? DEFAULT_HOST_KEY
  const client = clientInfo?.name.toLowerCase()
  if (client !== undefined && options.overrides !== undefined) {
    const override = Object.entries(options.overrides).find(([name]) => name.toLowerCase() === client)
    if (override !== undefined) return bounded(override[1], undefined, `configured for "${clientInfo?.name}"`)
  }
  const rule = client === undefined
    ? undefined
    : rules.find((r) => r.clientNames.some((name) => name.toLowerCase() === client))
  if (rule === undefined) return bounded(MAX_LENGTH, undefined, "the model APIs' limit of 64 characters")
  return bounded(rule.maxLength(hostKey), rule.host, `${rule.host}: ${rule.rule}, with the key "${hostKey}"`)
}
