/**
 * Opt-in local validation of a tool's arguments against the server's `inputSchema`, with Ajv (the most
 * widely used JSON Schema validator for JavaScript, already in the workspace through the MCP SDK).
 *
 * - Dialect: JSON Schema 2020-12, MCP's default when `$schema` is absent; a schema that declares draft-06 or
 *   draft-07 is checked as such.
 * - `strict: false` (servers use keywords of their own) and `validateFormats: false` (no format plugin).
 * - Nothing is ever fetched: compiling is synchronous and has no loader, so a `$ref` to anything outside the
 *   schema fails to compile. Such a tool is reported as not validated locally and is still offered; its
 *   server validates, as without this option.
 *
 * @since 0.1.0
 */
import { Ajv } from "ajv"
import { Ajv2020 } from "ajv/dist/2020.js"
import * as Effect from "effect/Effect"
import type * as Result from "effect/Result"

/**
 * Checks one call's arguments: `undefined` when they match, otherwise what does not, in one line.
 *
 * @since 0.1.0
 * @category models
 */
export type Check = (args: unknown) => string | undefined

const ajvOptions = { strict: false, validateFormats: false, allErrors: false } as const
let draft07: Ajv | undefined
let draft2020: Ajv2020 | undefined
const instanceFor = (schema: Readonly<Record<string, unknown>>): Ajv | Ajv2020 => {
  const dialect = schema["$schema"]
  if (typeof dialect === "string" && /draft-0[67]/.test(dialect)) return (draft07 ??= new Ajv(ajvOptions))
  return (draft2020 ??= new Ajv2020(ajvOptions))
}

/** By schema object: a server's tool keeps the same `inputSchema` object until its list changes. */
const compiled = new WeakMap<object, Result.Result<Check, string>>()

/**
 * Compiles a tool's `inputSchema` once; fails with Ajv's reason when it cannot be compiled (an unknown
 * dialect, a `$ref` outside the schema, an invalid schema).
 *
 * @since 0.1.0
 * @category constructors
 */
export const compile = (schema: Readonly<Record<string, unknown>>): Effect.Effect<Check, string> =>
  Effect.suspend(() => {
    const cached = compiled.get(schema)
    if (cached !== undefined) return Effect.fromResult(cached)
    const ajv = instanceFor(schema)
    return Effect.try({
      try: () => ajv.compile(schema),
      catch: (error) => (error instanceof Error ? error.message : String(error))
    }).pipe(
      Effect.map((validate): Check => (args) =>
        validate(args) ? undefined : ajv.errorsText(validate.errors, { dataVar: "arguments" })
      ),
      Effect.result,
      // The compiled function stands on its own: the schema leaves Ajv's registry, so that tools sharing an
      // `$id` do not clash and a changing tool list does not grow Ajv's cache.
      Effect.tap((result) =>
        Effect.sync(() => {
          ajv.removeSchema(schema)
          compiled.set(schema, result)
        })
      ),
      Effect.flatMap(Effect.fromResult)
    )
  })
