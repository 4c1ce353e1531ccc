/**
 * One decoded wire entry → one `ServerEntry` or `RemoteEntry`: `${VAR}` expansion, relative paths made relative
 * to the config file's folder, `timeout` read, defaults, env and header values wrapped in `Redacted`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import { basename, dirname, isAbsolute, join } from "node:path"
import * as ConfigError from "../ConfigError.ts"
import * as EnvExpansion from "../EnvExpansion.ts"
import type { RemoteEntry, ServerEntry } from "../McpConfig.ts"
import * as JsonPath from "./JsonPath.ts"
import type { RawRemoteEntry, RawServerEntry, ServersKey } from "./RawConfig.ts"
import { resolveAuth } from "./ResolveAuth.ts"

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
  readonly userHome: string | undefined
}

type ResolveError =
  | ConfigError.MissingEnvVar
  | ConfigError.MalformedPlaceholder
  | ConfigError.PromptInputPlaceholder
  | ConfigError.ConfigSchemaInvalid

/**
 * The config file's folder: what relative `command` / `cwd` / `envFile` paths mean (and `${workspaceFolder}`, but for
 * a file in `.vscode/`: see {@link workspaceFolder}).
 *
 * @since 0.1.0
 * @category paths
 */
export const configFolder = (path: string): string => dirname(path)

/**
 * What `${workspaceFolder}` means in a config file: for a file inside a `.vscode` folder (VS Code's
 * `.vscode/mcp.json`), the workspace root, the folder above `.vscode`, as VS Code means it; for any other file, the
 * file's own folder.
 *
 * @since 0.4.0
 * @category paths
 */
export const workspaceFolder = (path: string): string => {
  const folder = configFolder(path)
  return basename(folder) === ".vscode" ? dirname(folder) : folder
}

/**
 * A path relative to the config file's folder. Absolute paths stay as they are. The result keeps a `./` when
 * the folder is `.`, so a relative command is never looked up on `PATH`.
 *
 * @since 0.1.0
 * @category paths
 */
export const relativeToConfig = (path: string, relative: string): string => {
  if (isAbsolute(relative)) return relative
  const joined = join(configFolder(path), relative)
  return isAbsolute(joined) || joined.startsWith(".") || joined.includes("/") ? joined : `./${joined}`
}

/** A command with a path separator is a path (relative ones resolve against the config's folder); else PATH. */
const isPathLike = (command: string): boolean => command.includes("/") || command.includes("\\")

/**
 * The per-server `timeout` key, as milliseconds. Hosts disagree on its unit: Cline and Roo Code write seconds
 * (1–3600, default 60), Gemini CLI milliseconds (default 600000). A value up to 3600 is read as seconds, a larger
 * one as milliseconds. `requestTimeoutMs`, when given, wins.
 *
 * @since 0.1.0
 * @category resolving
 */
export const timeoutMillis = (timeout: number): number => (timeout <= 3600 ? timeout * 1000 : timeout)

const requestTimeout = (raw: { readonly timeout?: number; readonly requestTimeoutMs?: number }) =>
  raw.requestTimeoutMs !== undefined
    ? { requestTimeoutMs: raw.requestTimeoutMs }
    : raw.timeout !== undefined
    ? { requestTimeoutMs: timeoutMillis(raw.timeout) }
    : {}

const expander = (name: string, context: ResolveContext) => {
  const predefined: EnvExpansion.Predefined = {
    workspaceFolder: workspaceFolder(context.path),
    userHome: context.userHome
  }
  return (template: string, field: string): Effect.Effect<string, ResolveError> => {
    const expanded = EnvExpansion.expand(template, context.env, predefined)
    if (Result.isSuccess(expanded)) return Effect.succeed(expanded.success)
    const { path } = context
    const issue = expanded.failure
    switch (issue._tag) {
      case "MissingVariable":
        return Effect.fail(new ConfigError.MissingEnvVar({ path, server: name, field, variable: issue.variable }))
      case "PromptInput":
        return Effect.fail(
          new ConfigError.PromptInputPlaceholder({
            path,
            server: name,
            field,
            input: issue.id,
            suggestion: EnvExpansion.suggestedVariable(issue.id)
          })
        )
      case "MalformedPlaceholder":
        return Effect.fail(new ConfigError.MalformedPlaceholder({ path, server: name, field }))
    }
  }
}

const redactedRecord = (
  name: string,
  field: "env" | "headers",
  record: Readonly<Record<string, string>> | undefined,
  context: ResolveContext,
  expand: (template: string, field: string) => Effect.Effect<string, ResolveError>
): Effect.Effect<Readonly<Record<string, Redacted.Redacted<string>>>, ResolveError> =>
  Effect.gen(function*() {
    const out: Array<readonly [string, Redacted.Redacted<string>]> = []
    for (const [key, value] of Object.entries(record ?? {})) {
      if (field === "env" && !ENV_NAME.test(key)) {
        return yield* new ConfigError.ConfigSchemaInvalid({
          path: context.path,
          jsonPath: JsonPath.format([context.key, name, "env", key]),
          issue: "an environment variable name must be non-empty and contain no \"=\" or NUL character"
        })
      }
      out.push([key, Redacted.make(yield* expand(value, JsonPath.format([field, key])), { label: key })])
    }
    return Object.fromEntries(out)
  })

/**
 * Expands `command`, `cwd`, `envFile`, every arg and every env value of one stdio server, resolves a relative
 * `command` (one with a `/`), `cwd` and `envFile` against the config file's folder, reads `timeout`, and fills
 * in the defaults (`args: []`, `env: {}`, `disabled: false`, `curated: []`, `inheritEnv: false`).
 * `requestTimeoutMs`, `cwd` and `envFile` stay absent when absent. The env file itself is read by `load`.
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
    const expand = expander(name, context)
    const expandedCommand = yield* expand(raw.command, "command")
    const command = isPathLike(expandedCommand) ? relativeToConfig(context.path, expandedCommand) : expandedCommand
    const cwd = raw.cwd === undefined ? undefined : relativeToConfig(context.path, yield* expand(raw.cwd, "cwd"))
    const envFile = raw.envFile === undefined
      ? undefined
      : relativeToConfig(context.path, yield* expand(raw.envFile, "envFile"))
    const args: Array<string> = []
    for (const [index, arg] of (raw.args ?? []).entries()) {
      args.push(yield* expand(arg, JsonPath.format(["args", index])))
    }
    const env = yield* redactedRecord(name, "env", raw.env, context, expand)
    const entry: ServerEntry = {
      name,
      command,
      args,
      env,
      ...(envFile === undefined ? {} : { envFile }),
      ...(cwd === undefined ? {} : { cwd }),
      disabled: raw.disabled ?? false,
      curated: raw.curated ?? [],
      ...requestTimeout(raw),
      inheritEnv: raw.inheritEnv ?? false
    }
    return entry
  })

/**
 * Expands a remote entry's `url` and header values (both `Redacted`: URLs and headers carry tokens) and fills
 * in its defaults; `"streamable-http"` and an absent `type` are `"http"`.
 *
 * @since 0.1.0
 * @category resolving
 */
export const resolveRemote = (
  name: string,
  raw: RawRemoteEntry,
  context: ResolveContext
): Effect.Effect<RemoteEntry, ResolveError> =>
  Effect.gen(function*() {
    const expand = expander(name, context)
    const url = yield* expand(raw.url, "url")
    const headers = yield* redactedRecord(name, "headers", raw.headers, context, expand)
    const auth = raw.auth === undefined ? undefined : yield* resolveAuth(raw.auth, {
      path: context.path,
      at: [context.key, name, "auth"],
      expand,
      relative: (file) => relativeToConfig(context.path, file)
    })
    const entry: RemoteEntry = {
      name,
      transport: raw.type === "sse" ? "sse" : "http",
      url: Redacted.make(url, { label: "url" }),
      headers,
      disabled: raw.disabled ?? false,
      curated: raw.curated ?? [],
      ...requestTimeout(raw),
      ...(auth === undefined ? {} : { auth })
    }
    return entry
  })
