/**
 * The environment a server's child process gets: the application's base environment (`BaseEnvironment`) plus what
 * the caller passes. The whole parent environment only on opt-in (`inheritEnv`).
 *
 * @internal
 */
import type * as Redacted from "effect/Redacted"

/** Merges the base and the caller's variables; the caller's win. */
export const merge = (
  base: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | Redacted.Redacted<string>>> | undefined
): Record<string, string | Redacted.Redacted<string>> => ({ ...base, ...env })
