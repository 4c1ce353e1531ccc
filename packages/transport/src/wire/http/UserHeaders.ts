/**
 * The user's headers, ready to send: `Redacted` values unwrapped at the last moment, and their names added to the
 * names Effect's HTTP client redacts in spans, so that no secret reaches a tracer either.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Headers from "effect/http/Headers"
import * as Redacted from "effect/Redacted"

/** Headers to send, and a wrapper that runs an exchange with their secret names redacted in traces. */
export interface UserHeaders {
  readonly plain: Readonly<Record<string, string>>
  readonly redacting: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** Prepares `headers`; `alsoRedact` names more headers to hide from spans (`mcp-session-id`). */
export const prepare = (
  headers: Readonly<Record<string, string | Redacted.Redacted<string>>>,
  alsoRedact: ReadonlyArray<string> = []
): UserHeaders => {
  const plain: Record<string, string> = {}
  const names: Array<string | RegExp> = [...Headers.CurrentRedactedNames.defaultValue(), ...alsoRedact]
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase()
    plain[key] = Redacted.isRedacted(value) ? Redacted.value(value) : value
    if (Redacted.isRedacted(value)) names.push(key)
  }
  return {
    plain,
    redacting: (effect) => Effect.provideService(effect, Headers.CurrentRedactedNames, names)
  }
}
