/**
 * Answering a server's `elicitation/create`: the server asks the user for a few values (form mode, with a
 * `requestedSchema`) or to visit a URL (URL mode, 2025-11-25).
 *
 * Provide an `Elicitation` service (or pass one as `McpClient.make({ handlers: { elicitation } })`) and the client
 * declares `elicitation: { form: {} }` (and `url: {}` when it has a URL handler) in `initialize`. Before the form
 * handler sees a request, every field the schema gives a `default` is filled in `values` (SEP-1034); the handler
 * answers `accept` (with content), `decline` or `cancel`. An accepted answer is checked against the requested
 * schema before it is sent: one that does not match goes back as a JSON-RPC error, never as bad data.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Elicitation } from "@mcp-fleet/transport"
 *
 * // Accept every form with its defaults, refuse every URL.
 * const elicitation: Elicitation.Service = {
 *   form: (request) => Effect.succeed({ action: "accept", content: request.values }),
 *   url: () => Effect.succeed({ action: "decline" })
 * }
 * ```
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * One answered field: a string, a number, a boolean, or the chosen options of a multi-select.
 *
 * @since 0.2.0
 * @category models
 */
export type Value = string | number | boolean | ReadonlyArray<string>

/**
 * A form's answered fields, by name.
 *
 * @since 0.2.0
 * @category models
 */
export type Content = Readonly<Record<string, Value>>

/**
 * The schema of a form: a flat object of primitive fields (string, number, integer, boolean, enum).
 *
 * @since 0.2.0
 * @category models
 */
export interface RequestedSchema {
  readonly type: "object"
  readonly properties: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  readonly required?: ReadonlyArray<string> | undefined
}

/**
 * A form-mode request, with the schema's defaults already filled in `values`.
 *
 * @since 0.2.0
 * @category models
 */
export interface FormRequest {
  readonly _tag: "Form"
  /** The label of the server that asks. */
  readonly server: string
  readonly message: string
  readonly requestedSchema: RequestedSchema
  /** Every field the schema gives a valid `default`, with that default (SEP-1034). */
  readonly values: Content
}

/**
 * A URL-mode request: the server wants the user to open `url` (out of band: a sign-in, a payment).
 *
 * @since 0.2.0
 * @category models
 */
export interface UrlRequest {
  readonly _tag: "Url"
  readonly server: string
  readonly message: string
  readonly elicitationId: string
  readonly url: string
  /**
   * Completes when the server sends `notifications/elicitation/complete` for `elicitationId` (servers MAY send it
   * once the out-of-band interaction is done); never, if it does not. A handler that wants the server's word before
   * it answers waits on it, beside its own way for the user to say they are done (the spec asks for one: the
   * notification may never come). The client always sets it.
   */
  readonly completion?: Effect.Effect<void> | undefined
}

/**
 * One URL-mode elicitation a server requires before a request can proceed (`data.elicitations` of a `-32042` error,
 * `McpError.UrlElicitationRequired`).
 *
 * @since 0.5.0
 * @category schemas
 */
export const RequiredElicitation = Schema.Struct({
  mode: Schema.Literal("url"),
  elicitationId: Schema.String,
  url: Schema.String,
  message: Schema.String
})

/**
 * @since 0.5.0
 * @category schemas
 */
export type RequiredElicitation = typeof RequiredElicitation.Type

/**
 * The user's answer. `accept` carries the form's content (URL mode: none; it means the user consented and opened the
 * URL, and for a URL a `-32042` error required, that the request may be sent again).
 *
 * @since 0.2.0
 * @category models
 */
export type Answer =
  | { readonly action: "accept"; readonly content?: Content | undefined }
  | { readonly action: "decline" }
  | { readonly action: "cancel" }

/**
 * The handlers of each mode. A mode without a handler is not declared; a request for it is refused.
 * A handler's failure or defect goes back to the server as a JSON-RPC error (details logged, not sent).
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  readonly form?: ((request: FormRequest) => Effect.Effect<Answer, unknown>) | undefined
  readonly url?: ((request: UrlRequest) => Effect.Effect<Answer, unknown>) | undefined
  /** Bound of one answer (a person may be typing). Default 10 minutes. */
  readonly timeout?: Duration.Input | undefined
}

/**
 * The elicitation service. Optional: a client made where it is provided (and given no `handlers.elicitation`)
 * serves it.
 *
 * @since 0.2.0
 * @category services
 */
export class Elicitation extends Context.Service<Elicitation, Service>()("@mcp-fleet/transport/Elicitation") {}

/**
 * Accepts every form with its defaults (what a non-interactive host that trusts its servers may do).
 *
 * @since 0.2.0
 * @category constructors
 */
export const acceptDefaults: Service = {
  form: (request) => Effect.succeed({ action: "accept", content: request.values })
}

/**
 * Declines every form and every URL: declares both modes, so servers ask, and are told no.
 *
 * @since 0.2.0
 * @category constructors
 */
export const declineAll: Service = {
  form: () => Effect.succeed({ action: "decline" }),
  url: () => Effect.succeed({ action: "decline" })
}
