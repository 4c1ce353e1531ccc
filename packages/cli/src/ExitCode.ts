/**
 * How a run of `mcp-fleet` ends, as Unix tools do: `0` success; `1` a failure (a server not ready, a call that
 * failed or whose tool reported an error, a timeout); `2` a usage or configuration error (bad flags or
 * arguments, a config file that is missing, not JSON, of the wrong shape, with duplicate server names or
 * unset `${VAR}`s, a server name the file does not have); `130` interrupted (Ctrl-C). Messages go to stderr,
 * prefixed `mcp-fleet: `.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as CliError from "effect/cli/CliError"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"

/**
 * Exit code of a failure.
 *
 * @since 0.1.0
 * @category codes
 */
export const FAILURE = 1

/**
 * Exit code of a usage or configuration error.
 *
 * @since 0.1.0
 * @category codes
 */
export const USAGE = 2

const USAGE_TAGS: ReadonlySet<string> = new Set([
  // @mcp-fleet/config
  "ConfigFileNotFound",
  "ConfigFileUnreadable",
  "ConfigJsonInvalid",
  "ConfigSchemaInvalid",
  "DuplicateServerName",
  "DuplicateKey",
  "UnsupportedTransport",
  "MissingEnvVar",
  "MalformedPlaceholder",
  "PromptInputPlaceholder",
  "EnvFileUnreadable",
  // the CLI's own
  "UnknownTool",
  "UnknownQualifiedName",
  "InvalidArguments",
  "ServerNotConfigured",
  "NotRemote",
  // @mcp-fleet/manager
  "UnknownServer"
])

/**
 * The exit code for a typed error, by its tag: {@link USAGE} for usage and config errors, otherwise
 * {@link FAILURE}.
 *
 * @since 0.1.0
 * @category codes
 */
export const forError = (error: { readonly _tag: string }): number =>
  USAGE_TAGS.has(error._tag) || CliError.isCliError(error) ? USAGE : FAILURE

/**
 * The failure that ends the process with `code` once its message has been written to stderr (`runMain` reads
 * the code and does not log it again).
 *
 * @since 0.1.0
 * @category errors
 */
export class ExitStatus extends Data.TaggedError("ExitStatus")<{ readonly code: number }> {
  override get [Runtime.errorExitCode](): number {
    return this.code
  }
  override get [Runtime.errorReported](): boolean {
    return false
  }
  override get message(): string {
    return `exit status ${this.code}`
  }
}

/**
 * Writes one diagnostic line (or block) to stderr, prefixed `mcp-fleet: `.
 *
 * @since 0.1.0
 * @category reporting
 */
export const printError = (message: string): Effect.Effect<void> => Console.error(`mcp-fleet: ${message}`)

/**
 * The one line a defect gets on stderr: what was thrown (its first line only) and what to do next.
 *
 * @since 0.1.0
 * @category reporting
 */
export const defectLine = <E>(cause: Cause.Cause<E>): string => {
  const defect = Cause.squash(cause)
  const text = defect instanceof Error ? `${defect.name}: ${defect.message}` : String(defect)
  return `internal error (a bug in mcp-fleet): ${text.split("\n")[0]}; --log-level debug shows the stack`
}

/**
 * Turns every failure of `effect` into its message on stderr and an {@link ExitStatus}. Usage errors from
 * `effect/cli` (including a missing subcommand) have already been shown by the presenter and exit
 * {@link USAGE}. An interruption stays an interruption (exit 130 through `runMain`); a defect (a bug, not a
 * typed failure) is one line, {@link defectLine}, with the whole cause logged at debug level
 * (`--log-level debug`), and exits {@link FAILURE}.
 *
 * @since 0.1.0
 * @category reporting
 */
export const report = <A, E extends { readonly _tag: string; readonly message: string }, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A | void, ExitStatus, R> =>
  Effect.catchCause(effect, (cause) => {
    if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt
    const error = Cause.findErrorOption(cause)
    if (Option.isNone(error)) {
      return Effect.logDebug(`the defect in full:\n${Cause.pretty(cause)}`).pipe(
        Effect.andThen(printError(defectLine(cause))),
        Effect.andThen(Effect.fail(new ExitStatus({ code: FAILURE })))
      )
    }
    const e = error.value
    // Printed already by the command (`call` prints its failures itself, scrubbed of the secrets it sent).
    if (e instanceof ExitStatus) return Effect.fail(e)
    // Shown already by the presenter: a usage error, or the help for a missing subcommand (`--help` itself
    // succeeds and never gets here).
    if (CliError.isCliError(e) && e._tag === "ShowHelp") return Effect.fail(new ExitStatus({ code: USAGE }))
    return printError(e.message).pipe(Effect.andThen(Effect.fail(new ExitStatus({ code: forError(e) }))))
  })
