/**
 * The environment a server's child process gets: a minimal base (PATH, HOME and the like, read through
 * Effect's `ConfigProvider`) plus what the caller passes. The whole parent environment only on opt-in.
 *
 * @internal
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"

/** The variables a child inherits by default, as the MCP reference SDK does. */
export const BASE_VARIABLES: ReadonlyArray<string> = [
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TERM",
  "USER",
  "LANG",
  "TMPDIR"
]

/** Reads the base variables that are set. */
export const baseEnvironment: Effect.Effect<Record<string, string>> = Effect.gen(function*() {
  const out: Record<string, string> = {}
  for (const name of BASE_VARIABLES) {
    const value = yield* Effect.orElseSucceed(Config.option(Config.String(name)), () => Option.none<string>())
    if (Option.isSome(value)) out[name] = value.value
  }
  return out
})

/** Merges the base and the caller's variables; the caller's win. */
export const merge = (
  base: Record<string, string>,
  env: Readonly<Record<string, string | Redacted.Redacted<string>>> | undefined
): Record<string, string | Redacted.Redacted<string>> => ({ ...base, ...env })
