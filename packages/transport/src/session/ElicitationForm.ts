/**
 * The form-mode half of elicitation: reading a `requestedSchema`, filling its defaults (SEP-1034), and checking an
 * accepted answer against it before it is sent.
 *
 * The check uses Effect's own JSON Schema importer (`SchemaRepresentation.fromJsonSchemaDocument`) rather than a
 * JSON Schema library: the requested schema is MCP's restricted subset (a flat object of string, number, integer,
 * boolean and enum fields with `minLength`/`maxLength`/`minimum`/`maximum`/`minItems`…), all within what the
 * importer supports, and the transport then depends on `effect` alone (no validator in its install or its import
 * time). `format` is not checked (an annotation in 2020-12); a keyword the importer cannot translate makes the
 * request invalid (-32602), never a crash.
 *
 * @internal
 */
import * as Exit from "effect/Exit"
import * as JsonSchema from "effect/JsonSchema"
import * as Schema from "effect/Schema"
import * as SchemaRepresentation from "effect/SchemaRepresentation"
import type { Content, RequestedSchema, Value } from "../Elicitation.ts"
import { schemaDetail } from "../internal/SchemaDetail.ts"

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** Whether `u` can be a form field's value. */
export const isValue = (u: unknown): u is Value =>
  typeof u === "string" || typeof u === "boolean" || (typeof u === "number" && Number.isFinite(u)) ||
  (Array.isArray(u) && u.every((item) => typeof item === "string"))

/** The `requestedSchema` of a request, or why it is not one (a flat object schema). */
export const readSchema = (u: unknown): RequestedSchema | string => {
  if (!isRecord(u)) return "requestedSchema is not an object"
  if (u["type"] !== "object") return "requestedSchema's type is not \"object\""
  const properties = u["properties"]
  if (!isRecord(properties)) return "requestedSchema has no properties object"
  const fields: Record<string, Readonly<Record<string, unknown>>> = {}
  for (const [name, field] of Object.entries(properties)) {
    if (!isRecord(field)) return `requestedSchema's property ${JSON.stringify(name)} is not a schema`
    fields[name] = field
  }
  const required = u["required"]
  if (required !== undefined && !(Array.isArray(required) && required.every((r) => typeof r === "string"))) {
    return "requestedSchema's required is not a list of names"
  }
  return { type: "object", properties: fields, ...(required === undefined ? {} : { required }) }
}

/**
 * The schema's defaults (SEP-1034): each field whose `default` is a possible value, with that default. A default
 * that is not a possible value (an object, `null`) is left out.
 */
export const defaults = (schema: RequestedSchema): Content => {
  const values: Record<string, Value> = {}
  for (const [name, field] of Object.entries(schema.properties)) {
    const value = field["default"]
    if (isValue(value)) values[name] = value
  }
  return values
}

/** Checks answers against one requested schema: `undefined` when the content matches, else what does not. */
export type Check = (content: unknown) => string | undefined

/**
 * Compiles the check of a schema, or says why the schema cannot be checked. The object is closed: an answer with a
 * field the server did not ask for is refused (nothing leaves the host that was not requested).
 */
export const compile = (schema: RequestedSchema): Check | string => {
  const document = JsonSchema.fromSchemaDraft2020_12({
    type: "object",
    properties: { ...schema.properties },
    ...(schema.required === undefined ? {} : { required: [...schema.required] }),
    additionalProperties: false
  })
  let imported: Schema.Top
  try {
    imported = SchemaRepresentation.fromJsonSchemaDocument(document, { patterns: "ignore" })
  } catch (error) {
    return `requestedSchema cannot be checked: ${error instanceof Error ? error.message : String(error)}`
  }
  const decode = Schema.decodeUnknownExit(Schema.toType(imported))
  return (content) => {
    if (!isRecord(content)) return "the content is not an object"
    for (const [name, value] of Object.entries(content)) {
      if (!isValue(value)) return `the field ${JSON.stringify(name)} is not a string, number, boolean or string list`
    }
    const exit = decode(content, { onExcessProperty: "error" })
    return Exit.isSuccess(exit) ? undefined : schemaDetail(exit.cause)
  }
}
