/**
 * How `mcp-fleet` answers a server's `elicitation/create`: on a terminal, one prompt per field of the form (its
 * default prefilled), then "send?"; anywhere else, a refusal (`decline`) with a line on stderr saying so. A
 * URL-mode request prints the URL on stderr; on a terminal the user says whether to go on.
 *
 * Prompts are `effect/cli`'s `Prompt` (text, toggle, select, multi-select), shown when `TerminalCapabilities`
 * says a question can be asked (stdin and stdout are terminals). Ctrl-C or Escape during the form is `cancel`.
 * What the server wrote (its message, titles, the URL) is shown with control characters replaced, so a server
 * cannot drive the terminal.
 *
 * @since 0.2.0
 */
import type { Elicitation } from "@mcp-fleet/transport"
import * as Prompt from "effect/cli/Prompt"
import * as TerminalCapabilities from "effect/cli/TerminalCapabilities"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import type * as Path from "effect/Path"
import type * as Terminal from "effect/Terminal"

/**
 * Server text made safe to print: every control character (escape sequences included) becomes a space.
 *
 * @since 0.2.0
 * @category formatting
 */
export const printable = (text: string): string =>
  Array.from(text, (c) => {
    const code = c.charCodeAt(0)
    return code < 0x20 || (code >= 0x7f && code <= 0x9f) ? " " : c
  }).join("")

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

interface Choice {
  readonly title: string
  readonly value: string
}

/** The options of an enum field (`enum`, with `enumNames`; or `oneOf`/`anyOf` of `const` + `title`). */
const choicesOf = (schema: unknown): ReadonlyArray<Choice> | undefined => {
  if (!isRecord(schema)) return undefined
  const values = schema["enum"]
  if (Array.isArray(values) && values.every((v) => typeof v === "string")) {
    const names = schema["enumNames"]
    return values.map((value, i) => ({
      value,
      title: printable(Array.isArray(names) && typeof names[i] === "string" ? names[i] : value)
    }))
  }
  const options = schema["oneOf"] ?? schema["anyOf"]
  if (!Array.isArray(options)) return undefined
  const choices: Array<Choice> = []
  for (const option of options) {
    if (!isRecord(option) || typeof option["const"] !== "string") return undefined
    const title = typeof option["title"] === "string" ? option["title"] : option["const"]
    choices.push({ value: option["const"], title: printable(title) })
  }
  return choices
}

const numberCheck = (field: Readonly<Record<string, unknown>>, required: boolean) => (text: string) => {
  const trimmed = text.trim()
  if (trimmed === "") return required ? Effect.fail("a value is required") : Effect.succeed(trimmed)
  const n = Number(trimmed)
  if (!Number.isFinite(n)) return Effect.fail("not a number")
  if (field["type"] === "integer" && !Number.isInteger(n)) return Effect.fail("not an integer")
  const { maximum, minimum } = field
  if (typeof minimum === "number" && n < minimum) return Effect.fail(`at least ${minimum}`)
  if (typeof maximum === "number" && n > maximum) return Effect.fail(`at most ${maximum}`)
  return Effect.succeed(trimmed)
}

/**
 * The prompt of one field, its current value (the schema's default, if any) prefilled. `undefined`: left empty.
 *
 * @since 0.2.0
 * @category prompts
 */
export const fieldPrompt = (
  name: string,
  field: Readonly<Record<string, unknown>>,
  value: Elicitation.Value | undefined,
  required: boolean
): Prompt.Prompt<Elicitation.Value | undefined> => {
  const title = typeof field["title"] === "string" ? field["title"] : name
  const description = typeof field["description"] === "string" ? ` — ${field["description"]}` : ""
  const message = printable(`${title}${description}${required ? "" : " (optional)"}`)
  if (field["type"] === "boolean") {
    return Prompt.Toggle({ message, initial: value === true, active: "yes", inactive: "no" })
  }
  if (field["type"] === "array") {
    const choices = choicesOf(field["items"]) ?? []
    const chosen = Array.isArray(value) ? value : []
    return Prompt.MultiSelect({
      message,
      choices: choices.map((c) => ({ ...c, selected: chosen.includes(c.value) })),
      ...(typeof field["minItems"] === "number" ? { min: field["minItems"] } : {}),
      ...(typeof field["maxItems"] === "number" ? { max: field["maxItems"] } : {})
    })
  }
  const choices = choicesOf(field)
  if (choices !== undefined) {
    // The default first, so that Enter keeps it; an optional field may be left empty.
    const ordered = [...choices].sort((a, b) => (a.value === value ? -1 : b.value === value ? 1 : 0))
    const options: Array<{ readonly title: string; readonly value: string | undefined }> =
      required || value !== undefined
        ? ordered
        : [{ title: "(none)", value: undefined }, ...ordered]
    return Prompt.Select({ message, choices: options })
  }
  if (field["type"] === "integer" || field["type"] === "number") {
    return Prompt.String({
      message,
      default: typeof value === "number" ? String(value) : "",
      validate: numberCheck(field, required)
    }).pipe(Prompt.map((text) => (text.trim() === "" ? undefined : Number(text.trim()))))
  }
  return Prompt.String({
    message,
    default: typeof value === "string" ? value : "",
    validate: (text) => (required && text === "" ? Effect.fail("a value is required") : Effect.succeed(text))
  }).pipe(Prompt.map((text) => (text === "" ? undefined : text)))
}

/** Runs the form's prompts in order; the content has only the fields given a value. */
const askForm = (request: Elicitation.FormRequest) =>
  Effect.gen(function*() {
    const required = request.requestedSchema.required ?? []
    const content: Record<string, Elicitation.Value> = {}
    for (const [name, field] of Object.entries(request.requestedSchema.properties)) {
      const value = yield* Prompt.run(fieldPrompt(name, field, request.values[name], required.includes(name)))
      if (value !== undefined) content[name] = value
    }
    const send = yield* Prompt.run(
      Prompt.Confirm({ message: `Send these answers to ${printable(request.server)}?`, initial: true })
    )
    return send ? { action: "accept" as const, content } : { action: "decline" as const }
  })

const say = (text: string) => Console.error(`mcp-fleet: ${text}`)

/**
 * How `call` answers a server that asks for input (`--elicitation`):
 *
 * - `ask` (the default): on a terminal, the form's prompts; without one, a refusal (`decline`).
 * - `accept-defaults`: never asks; a form whose required fields all have a default (SEP-1034) is accepted with its
 *   defaults, any other form is declined; a URL (which needs a person) is declined. For scripts.
 * - `decline`: never asks; every request is declined.
 *
 * Each answer given without asking is said in one line on stderr.
 *
 * @since 0.4.0
 * @category models
 */
export type Mode = "ask" | "accept-defaults" | "decline"

/**
 * Every {@link Mode}, as `--elicitation` accepts them.
 *
 * @since 0.4.0
 * @category models
 */
export const MODES: ReadonlyArray<Mode> = ["ask", "accept-defaults", "decline"]

/**
 * The answer `accept-defaults` gives a form: accepted with its defaults when every required field has one, else
 * declined; with the line that says so.
 *
 * @since 0.4.0
 * @category answering
 */
export const withDefaults = (
  request: Elicitation.FormRequest
): { readonly answer: Elicitation.Answer; readonly said: string } => {
  const required = request.requestedSchema.required ?? []
  const missing = required.filter((name) => request.values[name] === undefined)
  if (missing.length > 0) {
    return {
      answer: { action: "decline" },
      said: `declined (--elicitation accept-defaults): no default for ${
        missing.map((name) => JSON.stringify(printable(name))).join(", ")
      }`
    }
  }
  const given = Object.keys(request.values)
  return {
    answer: { action: "accept", content: request.values },
    said: `accepted with its defaults (--elicitation accept-defaults)${
      given.length === 0 ? "" : `: ${given.map((name) => printable(name)).join(", ")}`
    }`
  }
}

/**
 * The CLI's elicitation handler for `mode` (see {@link Mode}).
 *
 * @since 0.4.0
 * @category constructors
 */
export const forMode: (mode: Mode) => Effect.Effect<
  Elicitation.Service,
  never,
  Terminal.Terminal | FileSystem.FileSystem | Path.Path
> = Effect.fnUntraced(function*(mode: Mode) {
  const { canPrompt: terminal } = yield* TerminalCapabilities.TerminalCapabilities
  const canPrompt = terminal && mode === "ask"
  const context = yield* Effect.context<Terminal.Terminal | FileSystem.FileSystem | Path.Path>()
  const asked = (server: string, message: string) => `${printable(server)} asks: ${printable(message)}`
  const unasked = mode === "ask"
    ? "there is no terminal to ask on"
    : `--elicitation ${mode}`
  if (mode !== "ask") {
    return {
      form: (request) => {
        const { answer, said } = mode === "accept-defaults"
          ? withDefaults(request)
          : { answer: { action: "decline" as const }, said: `declined (${unasked})` }
        return say(`${asked(request.server, request.message)} — ${said}`).pipe(Effect.as(answer))
      },
      url: (request) =>
        say(
          `${asked(request.server, request.message)}\n  open: ${printable(request.url)}\nmcp-fleet: declined (${
            mode === "accept-defaults" ? "a URL needs a person; --elicitation accept-defaults" : unasked
          })`
        ).pipe(Effect.as({ action: "decline" as const }))
    } satisfies Elicitation.Service
  }
  return {
    form: (request) =>
      canPrompt
        ? say(asked(request.server, request.message)).pipe(
          Effect.andThen(askForm(request)),
          // Ctrl-C or Escape in a prompt: the user dismissed the form.
          Effect.catchTag("QuitError", () => Effect.succeed({ action: "cancel" as const })),
          Effect.provideContext(context)
        )
        : say(`${asked(request.server, request.message)} — declined: ${unasked}`).pipe(
          Effect.as({ action: "decline" as const })
        ),
    url: (request) =>
      Effect.gen(function*() {
        yield* say(`${asked(request.server, request.message)}\n  open: ${printable(request.url)}`)
        if (!canPrompt) {
          yield* say("declined: there is no terminal to confirm on")
          return { action: "decline" as const }
        }
        const done = yield* Prompt.run(Prompt.Confirm({ message: "Continue once it is done?", initial: true })).pipe(
          Effect.map(Option.some),
          Effect.catchTag("QuitError", () => Effect.succeed(Option.none<boolean>())),
          Effect.provideContext(context)
        )
        return Option.match(done, {
          onNone: () => ({ action: "cancel" as const }),
          onSome: (yes) => (yes ? { action: "accept" as const } : { action: "decline" as const })
        })
      })
  } satisfies Elicitation.Service
})

/**
 * The CLI's elicitation handler: prompts on a terminal, refuses elsewhere (`forMode("ask")`).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: Effect.Effect<
  Elicitation.Service,
  never,
  Terminal.Terminal | FileSystem.FileSystem | Path.Path
> = forMode("ask")
