/**
 * `mcp-fleet auth login <server> | logout <server> | status [--json]`: OAuth sign-in for the config file's
 * remote servers, with tokens kept in the user's config directory (`tokens.json`, `0600`; see `CliAuth`).
 *
 * - `login` forgets the server's tokens, opens a loopback listener on 127.0.0.1 (random port), prints the
 *   authorization URL on stderr (and opens it with `$BROWSER` when that is set), waits for the redirect at most
 *   `--timeout` (default 5 minutes), exchanges the code and checks the server now answers `initialize`.
 * - `logout` forgets the server's tokens (the client registration is kept).
 * - `status` says, per remote server, whether tokens are held, from which issuer, with which scope, and when
 *   they expire; never a token.
 *
 * @since 0.2.0
 */
import * as AuthorizationPrompt from "@mcp-fleet/auth/AuthorizationPrompt"
import type * as FileTokenStore from "@mcp-fleet/auth/FileTokenStore"
import * as McpAuth from "@mcp-fleet/auth/McpAuth"
import * as TokenStore from "@mcp-fleet/auth/TokenStore"
import type { ConfigError, McpConfig } from "@mcp-fleet/config"
import { McpClient } from "@mcp-fleet/transport"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Path from "effect/Path"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as AuthProbe from "../AuthProbe.ts"
import * as CliAuth from "../CliAuth.ts"
import { CliEnvironment } from "../CliEnvironment.ts"
import { LoginFailed, NotRemote, ServerNotConfigured } from "../CliError.ts"
import * as CliFlags from "../CliFlags.ts"
import * as DurationText from "../DurationText.ts"
import * as FleetConfig from "../FleetConfig.ts"
import * as LoopbackPrompt from "../LoopbackPrompt.ts"
import * as OutputScrub from "../OutputScrub.ts"
import * as ServerAuth from "../ServerAuth.ts"

/**
 * Every way an `auth` command can fail.
 *
 * @since 0.2.0
 * @category models
 */
export type AuthError =
  | ConfigError.ConfigError
  | ServerNotConfigured
  | NotRemote
  | LoginFailed
  | FileTokenStore.TokenDirectoryRefused

type Requirements =
  | CliEnvironment
  | FileSystem.FileSystem
  | Path.Path
  | ChildProcessSpawner.ChildProcessSpawner

const undici = Layer.unwrap(
  Effect.promise(() => import("@effect/platform-node/NodeHttpClient")).pipe(Effect.map((m) => m.layerUndici))
)

/** The remote entry named `server`, or why there is none. */
const remoteEntry = (config: McpConfig.McpConfig, server: string) => {
  const remote = config.remote.find((s) => s.name === server)
  if (remote !== undefined) return Effect.succeed(remote)
  if (config.servers.some((s) => s.name === server)) return Effect.fail(new NotRemote({ server }))
  return Effect.fail(
    new ServerNotConfigured({
      server,
      configPath: config.path,
      known: [...config.servers, ...config.remote].map((s) => s.name)
    })
  )
}

const urlOf = (entry: McpConfig.RemoteEntry): string =>
  Redacted.isRedacted(entry.url) ? Redacted.value(entry.url) : entry.url

/** Opens `url` with `$BROWSER` in the background of the login's scope (it ends, or is stopped, with the login). */
const opener = (
  browser: string | undefined,
  spawner: ChildProcessSpawner.ChildProcessSpawner["Service"],
  scope: Scope.Scope
) =>
  browser === undefined || browser === "" ? undefined : (url: string) =>
    Effect.gen(function*() {
      yield* Effect.scoped(Effect.gen(function*() {
        const handle = yield* spawner.spawn(
          ChildProcess.make(browser, [url], { stdin: "ignore", stdout: "ignore", stderr: "ignore" })
        )
        yield* handle.exitCode
      })).pipe(
        Effect.catch((error) =>
          Effect.logWarning(`The browser ${JSON.stringify(browser)} could not be started`, error)
        ),
        Effect.forkIn(scope)
      )
    })

/**
 * Held tokens with their issuer and scope as they may be printed: the authorization server wrote both, so each is
 * scrubbed of the secrets it knows (the tokens and the client secret).
 */
const shown = (store: TokenStore.TokenStore["Service"], held: Option.Option<TokenStore.Tokens>) =>
  Option.match(held, {
    onNone: () => Effect.succeed(Option.none<TokenStore.Tokens>()),
    onSome: (tokens) =>
      Effect.map(store.getClient(tokens.issuer), (client) => {
        const secrets = [tokens.accessToken, tokens.refreshToken, Option.getOrUndefined(client)?.clientSecret]
        const redaction = OutputScrub.redaction(secrets.flatMap((s) => (s === undefined ? [] : [Redacted.value(s)])))
        return Option.some({
          ...tokens,
          issuer: redaction.text(tokens.issuer),
          scope: tokens.scope === undefined ? undefined : redaction.text(tokens.scope)
        })
      })
  })

const server = Argument.String("server").pipe(
  Argument.withDescription("The remote server, as named in the config file.")
)

const login = Command.make(
  "login",
  {
    server,
    config: CliFlags.config,
    timeout: Flag.String("timeout").pipe(
      Flag.withMetavar("DURATION"),
      Flag.filterMap(DurationText.parse, () => "a duration such as 90s, 5m or 300 (seconds)"),
      Flag.withDescription("How long to wait for the browser to come back. Default: 5 minutes."),
      Flag.withDefault(Duration.minutes(5))
    )
  },
  Effect.fn("mcp-fleet auth login")(function*({ config, server: name, timeout }) {
    const file = yield* FleetConfig.load(config)
    const entry = yield* remoteEntry(file, name)
    const url = urlOf(entry)
    const { env } = yield* CliEnvironment
    const where = yield* CliAuth.tokensFile
    const result = yield* Effect.scoped(Effect.gen(function*() {
      const store = yield* TokenStore.TokenStore
      yield* store.removeTokens(CliAuth.resourceKey(url))
      // A machine grant (the entry's auth settings) gets its token with nobody at a browser: no listener.
      const loopback = ServerAuth.isMachine(entry.auth) ? undefined : yield* LoopbackPrompt.make({
        timeout,
        show: (link) =>
          Console.error(`mcp-fleet: to authorize ${JSON.stringify(name)}, open this URL in a browser:\n  ${link}`),
        open: opener(env["BROWSER"], yield* ChildProcessSpawner.ChildProcessSpawner, yield* Scope.Scope)
      })
      const interactive = { clientName: CliAuth.CLIENT_NAME, redirectUri: loopback?.redirectUri ?? "http://127.0.0.1/" }
      const auth = yield* (entry.auth === undefined
        ? McpAuth.make(interactive)
        : ServerAuth.make(entry.auth, interactive)).pipe(
          Effect.provide(
            loopback === undefined
              ? AuthorizationPrompt.layerUnavailable("a machine grant needs no browser")
              : Layer.succeed(AuthorizationPrompt.AuthorizationPrompt, loopback.prompt)
          )
        )
      const client = yield* McpClient.http({
        url,
        headers: entry.headers,
        transport: entry.transport === "sse" ? "sse" : "auto",
        name,
        // The user's own pace: over legacy HTTP+SSE the handshake's deadline runs while the browser is open (plus a
        // margin for the token exchange). Over Streamable HTTP a request's deadline, the era probe's included, is
        // held while it waits for authorization, so the probe keeps its short default.
        requestTimeout: Duration.sum(timeout, Duration.seconds(30))
      }).pipe(Effect.provideService(McpAuth.McpAuth, auth))
      yield* client.awaitReady
      const tokens = yield* store.getTokens(CliAuth.resourceKey(url))
      return yield* shown(store, tokens)
    })).pipe(
      Effect.provide(Layer.merge(CliAuth.store, undici)),
      Effect.mapError((error) =>
        new LoginFailed({
          server: name,
          reason: error._tag === "AuthorizationRequired" ? error.reason : error.message
        })
      )
    )
    const saved = where === undefined ? "kept in memory only (no config directory)" : `saved in ${where}`
    const detail = Option.match(result, {
      onNone: () => "the server needed no authorization",
      onSome: (t) => `issuer ${t.issuer}${t.scope === undefined ? "" : `, scope ${t.scope}`}; tokens ${saved}`
    })
    yield* Console.log(`Authorized ${JSON.stringify(name)} (${detail}).`)
  })
).pipe(Command.withDescription("Sign in to a remote server with OAuth: prints (or opens) the authorization URL."))

const logout = Command.make(
  "logout",
  { server, config: CliFlags.config },
  Effect.fn("mcp-fleet auth logout")(function*({ config, server: name }) {
    const file = yield* FleetConfig.load(config)
    const entry = yield* remoteEntry(file, name)
    const key = CliAuth.resourceKey(urlOf(entry))
    const held = yield* Effect.gen(function*() {
      const store = yield* TokenStore.TokenStore
      const tokens = yield* store.getTokens(key)
      yield* store.removeTokens(key)
      return Option.isSome(tokens)
    }).pipe(Effect.provide(CliAuth.store))
    yield* Console.log(
      held
        ? `Signed out of ${JSON.stringify(name)}: its tokens were removed.`
        : `${JSON.stringify(name)} had no tokens.`
    )
  })
).pipe(Command.withDescription("Forget a remote server's OAuth tokens."))

/**
 * One server in `auth status --json`.
 *
 * @since 0.2.0
 * @category models
 */
export interface AuthStatusJson {
  readonly name: string
  /** The URL with credentials replaced by `***`. */
  readonly url: string
  readonly authorized: boolean
  readonly issuer: string | null
  readonly scope: string | null
  /** ISO time, or null when unknown. */
  readonly expiresAt: string | null
  readonly expired: boolean
  /** Whether a refresh token is held (the access token can be renewed without the user). */
  readonly refreshable: boolean
  /**
   * Whether the server needs a sign-in: `true` when tokens are held or it refused an `initialize` without them,
   * `false` when it answered one without any authorization, `null` when that could not be asked (see `reason`).
   */
  readonly needsSignIn: boolean | null
  /** Why `needsSignIn` is `null` (unreachable, no answer in time…); otherwise `null`. */
  readonly reason: string | null
}

const status = Command.make(
  "status",
  { config: CliFlags.config, json: CliFlags.json },
  Effect.fn("mcp-fleet auth status")(function*({ config, json }) {
    const file = yield* FleetConfig.load(config)
    const now = yield* Clock.currentTimeMillis
    const rows = yield* Effect.gen(function*() {
      const store = yield* TokenStore.TokenStore
      return yield* Effect.forEach(
        file.remote,
        (entry) =>
          Effect.gen(function*() {
            const held = yield* store.getTokens(CliAuth.resourceKey(urlOf(entry)))
            const t = Option.getOrUndefined(yield* shown(store, held))
            // Without tokens, the server itself says whether it needs them (one unauthenticated initialize).
            const found = t === undefined ? yield* AuthProbe.probe(entry) : undefined
            return {
              name: entry.name,
              url: McpClient.redactUrl(entry.url),
              authorized: t !== undefined,
              issuer: t?.issuer ?? null,
              scope: t?.scope ?? null,
              expiresAt: t?.expiresAt === undefined ? null : new Date(t.expiresAt).toISOString(),
              expired: t?.expiresAt !== undefined && t.expiresAt <= now,
              refreshable: t?.refreshToken !== undefined,
              needsSignIn: found === undefined || found._tag === "needed" ? true : found._tag === "open" ? false : null,
              reason: found?._tag === "unknown" ? found.reason : null
            } satisfies AuthStatusJson
          }),
        { concurrency: "unbounded" }
      )
    }).pipe(Effect.provide(Layer.merge(CliAuth.store, undici)))
    if (json) return yield* Console.log(JSON.stringify({ servers: rows }, null, 2))
    if (rows.length === 0) return yield* Console.log(`${file.path} has no remote servers.`)
    for (const row of rows) {
      if (!row.authorized) {
        yield* Console.log(
          row.needsSignIn === false
            ? `${row.name}: no sign-in needed (it answered without authorization) · ${row.url}`
            : row.needsSignIn === null
            ? `${row.name}: not signed in; whether it needs a sign-in is unknown (${row.reason}) · ${row.url}`
            : `${row.name}: not signed in (${CliAuth.advice(row.name)}) · ${row.url}`
        )
        continue
      }
      const expiry = row.expiresAt === null
        ? "no expiry given"
        : row.expired
        ? `expired${row.refreshable ? " (renewed on next use)" : ""}`
        : `expires in ${DurationText.format(Duration.millis(Date.parse(row.expiresAt) - now))}`
      const scope = row.scope === null ? "" : ` · scope ${row.scope}`
      yield* Console.log(`${row.name}: signed in · issuer ${row.issuer}${scope} · ${expiry} · ${row.url}`)
    }
  })
).pipe(
  Command.withDescription(
    "Which remote servers have OAuth tokens, from which issuer, until when (never a token); a server without tokens is asked whether it needs any."
  )
)

/**
 * The `auth` command with `login`, `logout` and `status`.
 *
 * @since 0.2.0
 * @category commands
 */
export const command: Command.Command<"auth", {}, {}, AuthError, Requirements> = Command.make("auth").pipe(
  Command.withDescription("OAuth sign-in for remote servers: login, logout, status."),
  Command.withSubcommands([login, logout, status])
)
