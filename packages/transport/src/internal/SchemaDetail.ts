/**
 * The first failure of a schema decode, on one line: the detail of a `ProtocolError`.
 *
 * @internal
 */
import type * as Cause from "effect/Cause"
import type * as Schema from "effect/Schema"

/** The first line of a schema failure, for a `ProtocolError`'s detail. */
export const schemaDetail = (cause: Cause.Cause<Schema.SchemaError>): string => {
  const error = cause.reasons.find((reason) => reason._tag === "Fail")
  return error !== undefined && error._tag === "Fail" ? error.error.message.replace(/\n\s*/g, " ") : "invalid shape"
}
