/**
 * Where `effect/cli`'s own output goes: `--help` and `--version` on stdout (asked for: they are the data); a usage
 * error on stderr — the errors, then the command's help — and so is the help shown for `mcp-fleet` without a
 * command, so that stdout stays clean for scripts.
 *
 * @since 0.1.0
 */
import { Console, Effect } from "effect"
import type { Layer } from "effect"
import { CliOutput } from "effect/cli"

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
        case "InvalidInvocation":
          yield* Console.error(formatter.formatErrors(event.errors))
          return yield* Console.error(formatter.formatHelpDoc(event.helpDoc))
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
