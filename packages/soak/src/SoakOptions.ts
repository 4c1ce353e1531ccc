/**
 * The soak's command line: `--duration D --servers N --concurrency C --seed S` (and `--help`).
 *
 * Durations are a number with a unit: `600ms`, `60s`, `10m`, `1h` (a bare number means seconds). Bad input is
 * a `SoakUsageError` that names the flag and says what it expected.
 *
 * @since 0.0.0
 */
import { Effect, Schema } from "effect"

/**
 * Everything one soak run needs to know.
 *
 * @since 0.0.0
 * @category models
 */
export interface SoakOptions {
  /** Total run time, warm-up included, in milliseconds. */
  readonly durationMs: number
  /** Fake servers under the one manager. */
  readonly servers: number
  /** Calls in flight at once (one worker fiber per slot). */
  readonly concurrency: number
  /** Seed of the random choices (which call, which server, when to kill). */
  readonly seed: number
  /** Each call's own timeout (`CallOptions.timeout`) for calls that should answer. */
  readonly callTimeoutMs: number
  /** Each call's own timeout for the calls sent on purpose to a server that never answers. */
  readonly hangTimeoutMs: number
  /** Extra time after a call's own deadline before it counts as unsettled. */
  readonly graceMs: number
  /** How much the heap (after forced GC) may grow from start to end before the run fails. */
  readonly heapBoundBytes: number
  /** Percent of chaos actions that are `restart(name)`; the rest are SIGKILLs. */
  readonly restartPercent: number
}

/**
 * The values used when a flag is absent.
 *
 * @since 0.0.0
 * @category defaults
 */
export const defaults: SoakOptions = {
  durationMs: 10 * 60_000,
  servers: 20,
  concurrency: 32,
  seed: 1,
  callTimeoutMs: 5_000,
  hangTimeoutMs: 250,
  graceMs: 2_000,
  heapBoundBytes: 16 * 1024 * 1024,
  restartPercent: 15
}

/**
 * The command line could not be understood. The message names the flag and what was expected.
 *
 * @since 0.0.0
 * @category errors
 */
export class SoakUsageError extends Schema.TaggedError<SoakUsageError>()("SoakUsageError", {
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/**
 * The help text.
 *
 * @since 0.0.0
 * @category usage
 */
export const usage =
  `usage: pnpm soak [--duration D] [--servers N] [--concurrency C] [--seed S] [--restarts P] [--heap-bound-mb M]

  --duration D      total run time, e.g. 60s, 10m, 1h, 500ms (default 10m; a bare number is seconds)
  --servers N       fake MCP servers under one manager (default ${defaults.servers}, at least 2)
  --concurrency C   calls in flight at once (default ${defaults.concurrency})
  --seed S          seed of the random choices (default ${defaults.seed})
  --restarts P      percent of chaos actions that are restart(name), the rest SIGKILLs (default ${defaults.restartPercent})
  --heap-bound-mb M heap growth (after forced GC) that fails the run (default ${defaults.heapBoundBytes / 1024 / 1024})

Exit code 0 when every call settled, no process was left and the heap stayed within the bound; 1 otherwise;
2 for a bad command line.`

const units: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, min: 60_000, h: 3_600_000 }

/**
 * Parses a duration such as `60s`, `10m`, `1.5h`, `500ms` or `90` (seconds) into milliseconds.
 *
 * @since 0.0.0
 * @category parsing
 */
export const parseDuration = (text: string): number | undefined => {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|min|m|h)?$/.exec(text.trim())
  if (match === null || match[1] === undefined) return undefined
  const ms = Number(match[1]) * (units[match[2] ?? "s"] ?? 1_000)
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms) : undefined
}

const integer = (flag: string, text: string, min: number, max: number): Effect.Effect<number, SoakUsageError> => {
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN
  return Number.isSafeInteger(n) && n >= min && n <= max
    ? Effect.succeed(n)
    : Effect.fail(
      new SoakUsageError({
        reason: `${flag} expects a whole number from ${min} to ${max}, got ${JSON.stringify(text)}.`
      })
    )
}

/**
 * Parses the arguments after the script name. `--flag value` and `--flag=value` are both accepted; a lone `--`
 * (which `pnpm soak -- …` may pass through) is ignored. Returns `"help"` for `--help`/`-h`.
 *
 * @since 0.0.0
 * @category parsing
 */
export const parse = (argv: ReadonlyArray<string>): Effect.Effect<SoakOptions | "help", SoakUsageError> =>
  Effect.gen(function*() {
    let options: SoakOptions = defaults
    const args = argv.filter((a) => a !== "--")
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!
      if (arg === "--help" || arg === "-h") return "help" as const
      const eq = arg.indexOf("=")
      const flag = eq > 0 ? arg.slice(0, eq) : arg
      let value: string | undefined
      if (eq > 0) value = arg.slice(eq + 1)
      else {
        value = args[i + 1]
        i++
      }
      if (!["--duration", "--servers", "--concurrency", "--seed", "--restarts", "--heap-bound-mb"].includes(flag)) {
        return yield* new SoakUsageError({ reason: `Unknown argument ${JSON.stringify(arg)}.\n\n${usage}` })
      }
      if (value === undefined || value === "") {
        return yield* new SoakUsageError({ reason: `${flag} needs a value.` })
      }
      switch (flag) {
        case "--duration": {
          const ms = parseDuration(value)
          if (ms === undefined) {
            return yield* new SoakUsageError({
              reason: `--duration expects a positive duration such as 60s, 10m or 500ms, got ${JSON.stringify(value)}.`
            })
          }
          options = { ...options, durationMs: ms }
          break
        }
        case "--servers":
          options = { ...options, servers: yield* integer(flag, value, 2, 500) }
          break
        case "--concurrency":
          options = { ...options, concurrency: yield* integer(flag, value, 1, 4096) }
          break
        case "--seed":
          options = { ...options, seed: yield* integer(flag, value, 0, 2 ** 31 - 1) }
          break
        case "--restarts":
          options = { ...options, restartPercent: yield* integer(flag, value, 0, 100) }
          break
        case "--heap-bound-mb":
          options = { ...options, heapBoundBytes: (yield* integer(flag, value, 1, 4096)) * 1024 * 1024 }
          break
      }
    }
    return options
  })
