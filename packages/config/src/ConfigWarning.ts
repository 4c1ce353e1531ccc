/**
 * What loading a config noticed but did not refuse: keys it ignores, and entries it cannot run. Each warning has
 * a one-line `message` that names the key or server, never a value.
 *
 * A key is warned about once, however many servers carry it (`servers` lists them in file order).
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"

const names = (servers: ReadonlyArray<string>): string =>
  `${servers.length === 1 ? "server" : "servers"} ${servers.map((s) => JSON.stringify(s)).join(", ")}`

/**
 * A key no host documents for a server entry (a typo, most likely); `suggestion` is the nearest known key when
 * one is close (`disable` → `disabled`).
 *
 * @since 0.1.0
 * @category warnings
 */
export class UnknownKey extends Data.TaggedClass("UnknownKey")<{
  readonly key: string
  readonly servers: ReadonlyArray<string>
  readonly suggestion: string | undefined
}> {
  get message(): string {
    const hint = this.suggestion === undefined ? "" : ` — did you mean ${JSON.stringify(this.suggestion)}?`
    return `ignoring ${JSON.stringify(this.key)} in ${names(this.servers)}${hint}`
  }
}

/**
 * A key another host uses (`autoApprove`, `alwaysAllow`, …) that mcp-fleet has no use for.
 *
 * @since 0.1.0
 * @category warnings
 */
export class IgnoredKey extends Data.TaggedClass("IgnoredKey")<{
  readonly key: string
  readonly servers: ReadonlyArray<string>
}> {
  get message(): string {
    return `ignoring ${JSON.stringify(this.key)} in ${
      names(this.servers)
    } (another host's setting; mcp-fleet does not use it)`
  }
}

/**
 * An entry with a `type` mcp-fleet does not know: it is left out of the config.
 *
 * @since 0.1.0
 * @category warnings
 */
export class UnknownTransport extends Data.TaggedClass("UnknownTransport")<{
  readonly server: string
  readonly transport: string
}> {
  get message(): string {
    return `skipping server ${JSON.stringify(this.server)}: unknown "type": ${
      JSON.stringify(this.transport)
    } (known: "stdio", "http", "streamable-http", "sse")`
  }
}

/**
 * Any warning of a loaded config.
 *
 * @since 0.1.0
 * @category warnings
 */
export type ConfigWarning = UnknownKey | IgnoredKey | UnknownTransport
