/**
 * Where `effect/cli`'s own output goes: `--help` and `--version` on stdout (asked for: they are the data); a usage
 * error on stderr as one line that names the problem and where to read more —
 * `mcp-fleet: unknown flag --bogus for status (see mcp-fleet status --help)` — and the help shown for `mcp-fleet`
 * without a command on stderr too, so that stdout stays clean for scripts.
 *
 * @since 0.1.0
 */
import type * as CliError from "effect/cli/CliError"
import * as CliOutput from "effect/cli/CliOutput"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"

const firstLine = (text: string): string => text.split("\n", 1)[0]!.trim()

const didYouMean = (suggestions: ReadonlyArray<string>): string =>
  suggestions.length === 0 ? "" : ` — did you mean ${suggestions.join(" or ")}?`

/**
 * One usage error as one line: `mcp-fleet: unknown flag --bogus for status (see mcp-fleet status --help)`.
 * `commandPath` is the command as effect/cli reports it (`["mcp-fleet", "status"]`).
 *
 * @since 0.1.0
 * @category rendering
 */
export const usageLine = (error: CliError.NonShowHelpErrors, commandPath: ReadonlyArray<string>): string => {
  const path = commandPath[0] === "mcp-fleet" ? commandPath : ["mcp-fleet", ...commandPath]
  const sub = path.slice(1).join(" ")
  const see = `(see ${path.join(" ")} --help)`
  switch (error._tag) {
    case "UnrecognizedOption":
      return `mcp-fleet: unknown flag ${error.option}${sub === "" ? "" : ` for ${sub}`}${
        didYouMean(error.suggestions)
      } ${see}`
    case "UnknownSubcommand":
      return `mcp-fleet: unknown command ${JSON.stringify(error.subcommand)}${didYouMean(error.suggestions)} ${see}`
    default:
      return `mcp-fleet: ${sub === "" ? "" : `${sub}: `}${firstLine(error.message)} ${see}`
  }
}

/**
 * The presenter.
 *
 * @since 0.1.0
 * @category presenters
 */
export const presenter: CliOutput.Presenter = {
  present: (event) =>
    Effect.gen(function*() {
      const formatter = yield* CliOutput.Formatter
      switch (event._tag) {
        case "InvalidInvocation": {
          const [first] = event.errors
          return yield* Console.error(
            first === undefined ? formatter.formatHelpDoc(event.helpDoc) : usageLine(first, event.commandPath)
          )
        }
        case "Help":
          // "Implicit" help is shown for a command that needs a subcommand and got none: a usage error.
          return yield* (event.reason === "Implicit" ? Console.error : Console.log)(
            formatter.formatHelpDoc(event.helpDoc)
          )
        case "Version":
          return yield* Console.log(formatter.formatVersion(event.name, event.version))
      }
    })
}

/**
 * Installs {@link presenter}.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<never> = CliOutput.layerPresenter(presenter)
