/**
 * Checking a value against an arbitrary JSON Schema (a tool's `outputSchema`), with Ajv, loaded on first use.
 *
 * Why Ajv and not Effect's JSON Schema importer (`SchemaRepresentation.fromJsonSchemaDocument`, which the form
 * check of elicitation uses): the importer translates a schema into an Effect Schema on a best-effort basis and
 * rejects what it cannot translate (`if`/`then`/`else`, `contains`, `dependentRequired`, `unevaluatedProperties`,
 * `not`, objects in `enum`/`const`, `$ref`s other than `#/$defs/…`, open `patternProperties`; patterns only when told
 * to apply them). A tool's output schema is the server's, any of 2020-12, and must be checked as written: Ajv
 * implements 2020-12 (and 2019-09, draft-07, draft-06) completely. It is already in the workspace (the MCP SDK and
 * `@mcp-fleet/ai` use it), and it is imported only when the first schema is compiled (about 20 ms once), so a client
 * whose tools declare no output schema never loads it.
 *
 * Dialect: `$schema` chooses it; absent, 2020-12 (MCP's default since 2025-11-25). Draft-04 and older, or an unknown
 * dialect, cannot be compiled. `strict: false` (servers use keywords of their own), `validateFormats: false`
 * (`format` is an annotation in 2020-12), and nothing is ever fetched: a `$ref` outside the schema does not compile.
 * Each schema leaves Ajv's registry once compiled (the compiled function stands on its own), so schemas that share an
 * `$id` do not clash and a changing tool list does not grow Ajv's cache.
 *
 * @internal
 */
import * as Effect from "effect/Effect"

/** Where a value first breaks its schema (a JSON Pointer into the value, `""` for the whole), and how. */
export interface Failure {
  readonly path: string
  readonly detail: string
}

/** Checks one value: `undefined` when it matches. */
export type Check = (value: unknown) => Failure | undefined

interface ErrorObject {
  readonly instancePath: string
  readonly message?: string | undefined
  readonly params: Readonly<Record<string, unknown>>
}

interface Engine {
  readonly compile: (schema: object) => ((value: unknown) => boolean) & {
    readonly errors?: ReadonlyArray<ErrorObject> | null | undefined
  }
  readonly removeSchema: (schema: object) => unknown
}

type Dialect = "2020-12" | "2019-09" | "draft-07"

const OPTIONS = { strict: false, validateFormats: false, allErrors: false, logger: false } as const

/** The dialect `$schema` names, or why it cannot be checked. */
const dialectOf = (schema: Readonly<Record<string, unknown>>): Dialect | string => {
  const declared = schema["$schema"]
  if (declared === undefined) return "2020-12"
  if (typeof declared !== "string") return "its $schema is not a string"
  if (/json-schema\.org\/draft\/2020-12\/schema/.test(declared)) return "2020-12"
  if (/json-schema\.org\/draft\/2019-09\/schema/.test(declared)) return "2019-09"
  if (/json-schema\.org\/draft-0[67]\/schema/.test(declared)) return "draft-07"
  return `its $schema ${
    JSON.stringify(declared)
  } is a dialect this client does not check (2020-12, 2019-09, draft-07 and draft-06 are)`
}

const load = (dialect: Dialect): Effect.Effect<Engine> => {
  switch (dialect) {
    case "2020-12":
      return Effect.map(Effect.promise(() => import("ajv/dist/2020.js")), ({ Ajv2020 }) => new Ajv2020(OPTIONS))
    case "2019-09":
      return Effect.map(Effect.promise(() => import("ajv/dist/2019.js")), ({ Ajv2019 }) => new Ajv2019(OPTIONS))
    case "draft-07":
      return Effect.map(
        Effect.all([
          Effect.promise(() => import("ajv")),
          Effect.promise(() => import("ajv/dist/refs/json-schema-draft-06.json", { with: { type: "json" } }))
        ]),
        ([{ Ajv }, draft06]) => {
          const ajv = new Ajv(OPTIONS)
          ajv.addMetaSchema(draft06.default)
          return ajv
        }
      )
  }
}

const detailOf = (error: ErrorObject): string => {
  const named = error.params["additionalProperty"] ?? error.params["unevaluatedProperty"]
  return `${error.message ?? "does not match"}${typeof named === "string" ? ` (${JSON.stringify(named)})` : ""}`
}

/** A compiler with its own Ajv instances, each made on first use. */
export interface Compiler {
  /** Compiles `schema`, or fails with why it cannot be checked. */
  readonly compile: (schema: Readonly<Record<string, unknown>>) => Effect.Effect<Check, string>
}

/** A fresh compiler (one per session: nothing is shared between clients). */
export const make = (): Compiler => {
  const engines = new Map<Dialect, Engine>()
  const engine = (dialect: Dialect): Effect.Effect<Engine> => {
    const made = engines.get(dialect)
    return made !== undefined
      ? Effect.succeed(made)
      : Effect.tap(load(dialect), (loaded) => Effect.sync(() => engines.set(dialect, loaded)))
  }
  return {
    compile: (schema) => {
      const dialect = dialectOf(schema)
      if (dialect !== "2020-12" && dialect !== "2019-09" && dialect !== "draft-07") return Effect.fail(dialect)
      return Effect.flatMap(engine(dialect), (ajv) =>
        Effect.try({
          try: () => ajv.compile(schema),
          catch: (error) => (error instanceof Error ? error.message : String(error))
        }).pipe(
          Effect.ensuring(Effect.sync(() => ajv.removeSchema(schema))),
          Effect.map((validate): Check => (value) => {
            if (validate(value)) return undefined
            const first = validate.errors?.[0]
            return first === undefined
              ? { path: "", detail: "does not match" }
              : { path: first.instancePath, detail: detailOf(first) }
          })
        ))
    }
  }
}
