/**
 * One decoded wire entry → one `ServerEntry`: `${VAR}` expansion, defaults, env values wrapped in `Redacted`.
 *
 * @since 0.1.0
 */
import { Effect, Redacted, Result } from "effect"
import * as ConfigError from "../ConfigError.ts"
import * as EnvExpansion from "../EnvExpansion.ts"
import type { ServerEntry } from "../McpConfig.ts"
import * as JsonPath from "./JsonPath.ts"
import type { RawServerEntry, ServersKey } from "./RawConfig.ts"

/** A variable name a child process can receive: non-empty, no `=`, no NUL. */
const ENV_NAME = /^[^=\0]+$/

/**
 * Where the entry came from and what to expand against.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResolveContext {
  readonly path: string
  readonly key: ServersKey
  readonly env: EnvExpansion.Environment
}

type ResolveError = ConfigError.MissingEnvVar | ConfigError.MalformedPlaceholder | ConfigError.ConfigSchemaInvalid

/**
 * Expands `command`, `cwd`, every arg and every env value of one server, and fills in the defaults
 * (`args: []`, `env: {}`, `disabled: false`, `curated: []`, `inheritEnv: false`). `requestTimeoutMs` and `cwd`
 * stay absent when absent.
 *
 * @since 0.1.0
 * @category resolving
 */
export const resolveServer = (
  name: string,
  raw: RawServerEntry,
  context: ResolveContext
): Effect.Effect<ServerEntry, ResolveError> =>
  Effect.gen(function*() {
    const expand = (template: string, field: string): Effect.Effect<string, ResolveError> => {
      const expanded = EnvExpansion.expand(template, context.env)
      if (Result.isSuccess(expanded)) return Effect.succeed(expanded.success)
      const { path } = context
      return Effect.fail(
        expanded.failure._tag === "MissingVariable"
          ? new ConfigError.MissingEnvVar({ path, server: name, field, variable: expanded.failure.variable })
          : new ConfigError.MalformedPlaceholder({ path, server: name, field })
      )
    }
    const command = yield* expand(raw.command, "command")
    const cwd = raw.cwd === undefined ? undefined : yield* expand(raw.cwd, "cwd")
    const args: Array<string> = []
    for (const [index, arg] of (raw.args ?? []).entries()) {
      args.push(yield* expand(arg, JsonPath.format(["args", index])))
    }
    const env: Array<readonly [string, Redacted.Redacted<string>]> = []
    for (const [key, value] of Object.entries(raw.env ?? {})) {
      const field = JsonPath.format(["env", key])
      if (!ENV_NAME.test(key)) {
        return yield* new ConfigError.ConfigSchemaInvalid({
          path: context.path,
          jsonPath: JsonPath.format([context.key, name, "env", key]),
          issue: "an environment variable name must be non-empty and contain no \"=\" or NUL character"
        })
      }
      env.push([key, Redacted.make(yield* expand(value, field), { label: key })])
    }
    const entry: ServerEntry = {
      name,
      command,
      args,
      env: Object.fromEntries(env),
      ...(cwd === undefined ? {} : { cwd }),
      disabled: raw.disabled ?? false,
      curated: raw.curated ?? [],
      ...(raw.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: raw.requestTimeoutMs }),
      inheritEnv: raw.inheritEnv ?? false
    }
    return entry
  })
