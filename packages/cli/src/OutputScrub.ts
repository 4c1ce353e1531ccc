/**
 * What the CLI prints while it runs servers (`call`, `tools`, `resources`, `prompts`, `status`) is scrubbed of
 * every secret it sent them, with the transport's redactor (`@mcp-fleet/transport/Redaction`, `<redacted>` in
 * place of each): a tool can echo its environment, a header or the bearer token, a server can put them in a
 * description, and a terminal or a log file is no place for them. The library's results (`CallToolResult`, tool
 * lists, resources) stay the server's data: only the CLI's output is scrubbed.
 *
 * The secrets: the `env` values of a stdio server (all `Redacted` in a config file); the header values of a remote
 * one (and the credentials part of an `Authorization` header), its URL's password; the OAuth tokens held for it
 * (access and refresh) and the client secret of their issuer.
 *
 * @since 0.4.0
 */
import * as TokenStore from "@mcp-fleet/auth/TokenStore"
import type { McpConfig, RemoteAuth } from "@mcp-fleet/config"
import * as Redaction from "@mcp-fleet/transport/Redaction"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import type * as Path from "effect/Path"
import * as Redacted from "effect/Redacted"
import * as CliAuth from "./CliAuth.ts"
import type { CliEnvironment } from "./CliEnvironment.ts"

/** A header value and, for `<scheme> <credentials>`, the credentials alone. */
const headerSecrets = (value: string): ReadonlyArray<string> => {
  const credentials = /^\s*\S+\s+(\S+)\s*$/.exec(value)?.[1]
  return credentials === undefined ? [value] : [value, credentials]
}

/** The URL's password (decoded and as written), when it has one. */
const urlSecrets = (url: string): ReadonlyArray<string> => {
  const parsed = URL.parse(url)
  if (parsed === null || parsed.password === "") return []
  return [parsed.password, decodeURIComponent(parsed.password)]
}

/** The client secrets of a remote entry's `auth` settings (key, assertion and ID token files are read at token time
 * and sent only to the authorization server or the IdP). */
const authSecrets = (auth: RemoteAuth.RemoteAuth | undefined): ReadonlyArray<string> => {
  if (auth === undefined) return []
  const secretOf = (credential: RemoteAuth.ClientCredential) =>
    credential.method === "none" || credential.method === "private_key_jwt" ? [] : [Redacted.value(credential.secret)]
  switch (auth.grant) {
    case "authorization_code":
      return auth.clientSecret === undefined ? [] : [Redacted.value(auth.clientSecret)]
    case "enterprise":
      return [...secretOf(auth.credential), ...secretOf(auth.idp.credential)]
    default:
      return secretOf(auth.credential)
  }
}

/**
 * Every secret the CLI sends `server` (the config's only entry of that name), read now: the token store is read
 * afresh, so call it again after a call to know a token refreshed during it.
 *
 * @since 0.4.0
 * @category secrets
 */
export const secretsOf = (
  config: McpConfig.McpConfig,
  server: string
): Effect.Effect<ReadonlyArray<string>, never, CliEnvironment | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const local = config.servers.find((s) => s.name === server)
    if (local !== undefined) return Object.values(local.env).map(Redacted.value)
    const remote = config.remote.find((s) => s.name === server)
    if (remote === undefined) return []
    const url = Redacted.value(remote.url)
    const configured = [
      ...Object.values(remote.headers).flatMap((value) => headerSecrets(Redacted.value(value))),
      ...urlSecrets(url),
      ...authSecrets(remote.auth)
    ]
    const held = yield* Effect.gen(function*() {
      const store = yield* TokenStore.TokenStore
      const tokens = Option.getOrUndefined(yield* store.getTokens(CliAuth.resourceKey(url)))
      if (tokens === undefined) return []
      const client = Option.getOrUndefined(yield* store.getClient(tokens.issuer))
      return [tokens.accessToken, tokens.refreshToken, client?.clientSecret].flatMap((s) =>
        s === undefined ? [] : [Redacted.value(s)]
      )
    }).pipe(
      Effect.provide(CliAuth.store),
      // No readable store, no tokens: nothing was sent from it either.
      Effect.catchTag("TokenDirectoryRefused", () => Effect.succeed([]))
    )
    return [...configured, ...held]
  })

/**
 * A console whose every line (log, error, warn, info, debug) goes through `scrub` first, as `current()` has it at
 * the time of writing.
 *
 * @since 0.4.0
 * @category output
 */
export const console = (inner: Console.Console, current: () => Redaction.Redaction): Console.Console => {
  const scrubbed = (write: (...args: ReadonlyArray<unknown>) => void) => (...args: ReadonlyArray<unknown>) =>
    write(...args.map((arg) => (typeof arg === "string" ? current().text(arg) : current().value(arg))))
  return {
    ...inner,
    log: scrubbed((...args) => inner.log(...args)),
    error: scrubbed((...args) => inner.error(...args)),
    warn: scrubbed((...args) => inner.warn(...args)),
    info: scrubbed((...args) => inner.info(...args)),
    debug: scrubbed((...args) => inner.debug(...args)),
    trace: scrubbed((...args) => inner.trace(...args))
  }
}

/**
 * A redactor of `secrets`.
 *
 * @since 0.4.0
 * @category secrets
 */
export const redaction = (secrets: Iterable<string>): Redaction.Redaction => Redaction.make(secrets)

/**
 * Every secret the CLI sends the servers of `config`.
 *
 * @since 0.4.0
 * @category secrets
 */
export const secretsOfAll = (
  config: McpConfig.McpConfig
): Effect.Effect<ReadonlyArray<string>, never, CliEnvironment | FileSystem.FileSystem | Path.Path> =>
  Effect.map(
    Effect.forEach([...config.servers, ...config.remote], (entry) => secretsOf(config, entry.name)),
    (all) => all.flat()
  )

/**
 * Runs `effect` with a console that scrubs every line it writes of the secrets of `config`'s servers, as they are
 * when it starts.
 *
 * @since 0.4.0
 * @category output
 */
export const scrubbing = (config: McpConfig.McpConfig) =>
<A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | CliEnvironment | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const scrub = redaction(yield* secretsOfAll(config))
    if (!scrub.active) return yield* effect
    const inner = yield* Console.Console
    return yield* Effect.provideService(effect, Console.Console, console(inner, () => scrub))
  })
