/**
 * OAuth in the CLI: where tokens live (`tokens.json` in the user's config directory, `0600`), the `McpAuth` every
 * command runs remote servers with (no prompt: a server that needs the user becomes `unauthorized` with the
 * advice "run `mcp-fleet auth login <server>`" instead of waiting for a browser), and the key under which a
 * server's tokens are kept.
 *
 * The config directory is `$MCP_FLEET_CONFIG_DIR`, else `$XDG_CONFIG_HOME/mcp-fleet`, else
 * `~/.config/mcp-fleet`, read from `CliEnvironment` (the entry point passes the process's variables in).
 *
 * @since 0.2.0
 */
import * as AuthorizationPrompt from "@mcp-fleet/auth/AuthorizationPrompt"
import * as FileTokenStore from "@mcp-fleet/auth/FileTokenStore"
import * as McpAuth from "@mcp-fleet/auth/McpAuth"
import * as ProtectedResourceMetadata from "@mcp-fleet/auth/ProtectedResourceMetadata"
import * as TokenStore from "@mcp-fleet/auth/TokenStore"
import type { McpConfig } from "@mcp-fleet/config"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as Path from "effect/Path"
import * as Redacted from "effect/Redacted"
import { CliEnvironment } from "./CliEnvironment.ts"
import * as ServerAuth from "./ServerAuth.ts"

/**
 * The client name sent in Dynamic Client Registration.
 *
 * @since 0.2.0
 * @category constants
 */
export const CLIENT_NAME = "mcp-fleet"

/**
 * What a server waiting for authorization tells the user (the manager's `authorizationAdvice`).
 *
 * @since 0.2.0
 * @category advice
 */
export const advice = (server: string): string => `run \`mcp-fleet auth login ${server}\``

/**
 * {@link advice}, except for a server whose config entry has a machine grant (`auth.grant`): signing in is not the
 * fix there, its settings are (`auth login` tries them and says what the authorization server answered).
 *
 * @since 0.2.0
 * @category advice
 */
export const adviceFor = (remote: ReadonlyArray<McpConfig.RemoteEntry>) => (server: string): string => {
  const auth = remote.find((entry) => entry.name === server)?.auth
  return auth !== undefined && auth.grant !== "authorization_code"
    ? `check the auth settings (${auth.grant}) of ${
      JSON.stringify(server)
    } in the config; \`mcp-fleet auth login ${server}\` tries them`
    : advice(server)
}

/**
 * The directory of the CLI's own files (tokens), or `undefined` when no home is known.
 *
 * @since 0.2.0
 * @category paths
 */
export const configDir: Effect.Effect<string | undefined, never, CliEnvironment | Path.Path> = Effect.gen(
  function*() {
    const { env, userHome } = yield* CliEnvironment
    const path = yield* Path.Path
    const own = env["MCP_FLEET_CONFIG_DIR"]
    if (own !== undefined && own !== "") return own
    const xdg = env["XDG_CONFIG_HOME"]
    if (xdg !== undefined && xdg !== "") return path.join(xdg, "mcp-fleet")
    return userHome === undefined ? undefined : path.join(userHome, ".config", "mcp-fleet")
  }
)

/**
 * The token store: the file store in the config directory, or memory when there is none. Fails with
 * `TokenDirectoryRefused` when the directory is a symbolic link, not a directory, or open to others and not the
 * user's to tighten.
 *
 * @since 0.2.0
 * @category layers
 */
export const store: Layer.Layer<
  TokenStore.TokenStore,
  FileTokenStore.TokenDirectoryRefused,
  CliEnvironment | FileSystem.FileSystem | Path.Path
> = Layer.unwrap(
  Effect.map(configDir, (dir) => (dir === undefined ? TokenStore.layerMemory : FileTokenStore.layer(dir)))
)

/**
 * The store of the commands that run servers: {@link store}, or, when its directory is refused, memory with a
 * warning saying why (remote servers then run without stored tokens and become `unauthorized`; `auth login`
 * fails with the same reason).
 */
const unattendedStore: Layer.Layer<TokenStore.TokenStore, never, CliEnvironment | FileSystem.FileSystem | Path.Path> =
  store.pipe(
    Layer.catch((error) =>
      Layer.effect(
        TokenStore.TokenStore,
        Effect.logWarning(`${error.message} Remote servers run without stored tokens.`).pipe(
          Effect.andThen(TokenStore.makeMemory)
        )
      )
    )
  )

/**
 * Where the tokens file is, for messages.
 *
 * @since 0.2.0
 * @category paths
 */
export const tokensFile: Effect.Effect<string | undefined, never, CliEnvironment | Path.Path> = Effect.gen(
  function*() {
    const dir = yield* configDir
    const path = yield* Path.Path
    return dir === undefined ? undefined : path.join(dir, FileTokenStore.FILE_NAME)
  }
)

/** Never used to receive anything: commands other than `auth login` never send the user anywhere. */
const UNATTENDED_REDIRECT = "http://127.0.0.1/callback"

/**
 * `McpAuth` for the commands that run servers (`status`, `tools`, `call`): held tokens are sent and refreshed;
 * when the user would have to authorize, the prompt refuses at once (the server becomes `unauthorized`). A remote
 * entry with `auth` settings gets its own strategy (`ServerAuth`): a pre-registered client, or a machine grant that
 * needs nobody. One token store serves them all: the config directory's, or `tokens` when given (the shared one of
 * `serve --redis`).
 *
 * @since 0.2.0
 * @category layers
 */
export const unattendedFor = (
  remote: ReadonlyArray<McpConfig.RemoteEntry>,
  tokens?: TokenStore.TokenStore["Service"] | undefined
): Layer.Layer<McpAuth.McpAuth, never, HttpClient.HttpClient | CliEnvironment | FileSystem.FileSystem | Path.Path> => {
  const interactive = { clientName: CLIENT_NAME, redirectUri: UNATTENDED_REDIRECT }
  return Layer.effect(
    McpAuth.McpAuth,
    Effect.flatMap(McpAuth.make(interactive), (fallback) => ServerAuth.routes(remote, fallback, interactive))
  ).pipe(
    Layer.provide([
      AuthorizationPrompt.layerUnavailable("this command does not open a browser; `mcp-fleet auth login` does"),
      tokens === undefined ? unattendedStore : Layer.succeed(TokenStore.TokenStore, tokens)
    ])
  )
}

/**
 * {@link unattendedFor} a config without `auth` settings.
 *
 * @since 0.2.0
 * @category layers
 */
export const unattended: Layer.Layer<
  McpAuth.McpAuth,
  never,
  HttpClient.HttpClient | CliEnvironment | FileSystem.FileSystem | Path.Path
> = unattendedFor([])

/**
 * The key a server's tokens are kept under: its URL without credentials, query or fragment (as the HTTP
 * transport gives it to `McpAuth`).
 *
 * @since 0.2.0
 * @category keys
 */
export const resourceKey = (url: string | Redacted.Redacted<string>): string => {
  const raw = Redacted.isRedacted(url) ? Redacted.value(url) : url
  const parsed = URL.parse(raw)
  // Not a URL: the transport refuses it (InvalidUrl) before any token is used, so no tokens are kept under it.
  if (parsed === null) return raw
  parsed.username = ""
  parsed.password = ""
  return ProtectedResourceMetadata.canonicalResource(parsed)
}
