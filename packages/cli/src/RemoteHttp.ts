/**
 * The HTTP client remote (`url`) servers need, loaded only when a config has one: undici costs a CLI run of
 * only stdio servers about 0.2 s of startup, so it is imported lazily, when the manager is built.
 *
 * @since 0.2.0
 */
import type * as TokenStore from "@mcp-fleet/auth/TokenStore"
import type { McpConfig } from "@mcp-fleet/config"
import type { ManagerOptions } from "@mcp-fleet/manager"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import type * as Path from "effect/Path"
import * as CliAuth from "./CliAuth.ts"
import type { CliEnvironment } from "./CliEnvironment.ts"

const undici = Layer.unwrap(
  Effect.promise(() => import("@effect/platform-node/NodeHttpClient")).pipe(Effect.map((m) => m.layerUndici))
)

/**
 * Provides `HttpClient` (undici) to `effect`, for as long as `effect` runs (the demo, whose fleet always has a
 * remote server).
 *
 * @since 0.2.0
 * @category running
 */
export const provideHttpClient = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provide(effect, undici)

/**
 * Provides `HttpClient` (undici) and the CLI's unattended `McpAuth` (tokens from the config directory, or `tokens`
 * when given (`serve --redis`); no prompt; the `auth` settings of `remote`'s entries, see `ServerAuth`) to `effect`
 * when `options` has a remote server; otherwise `effect` as it is.
 *
 * @since 0.2.0
 * @category running
 */
export const whenRemote = (
  options: ManagerOptions.ManagerOptions,
  remote: ReadonlyArray<McpConfig.RemoteEntry> = [],
  tokens?: TokenStore.TokenStore["Service"] | undefined
) =>
<A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | CliEnvironment | FileSystem.FileSystem | Path.Path> =>
  Object.values(options.servers).some((server) => server.url !== undefined)
    ? Effect.provide(effect, CliAuth.unattendedFor(remote, tokens).pipe(Layer.provideMerge(undici)))
    : effect
