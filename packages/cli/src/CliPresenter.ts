/**
 * Where `effect/cli`'s own output goes: help and `--version` on stdout (asked for: they are the data), a usage
 * error on stderr — the errors, then the command's help — so that stdout stays clean for scripts.
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
    event._tag === "InvalidInvocation"
      ? Effect.gen(function*() {
        const formatter = yield* CliOutput.Formatter
        yield* Console.error(formatter.formatErrors(event.errors))
        yield* Console.error(formatter.formatHelpDoc(event.helpDoc))
      })
      : CliOutput.defaultPresenter.present(event)
}

/**
 * Installs {@link presenter}.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<never> = CliOutput.layerPresenter(presenter)
