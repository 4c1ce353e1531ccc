/**
 * Every tool result's `structuredContent` checked against its tool's `outputSchema`, as the official SDK does (on by
 * default; `validateStructuredContent: false` turns it off).
 *
 * - The schemas are those of the session's latest tool list (`listTools`, or the manager's discovery). A tool not in
 *   it (never listed, or gone since) is not checked: the client never lists tools only to check a result.
 * - A tool error (`isError: true`) is returned as it came, unchecked. A result without `structuredContent` for a
 *   tool that declares an `outputSchema` fails, as one that does not match it: `StructuredContentInvalid` with the
 *   JSON Pointer of the first mismatch (`path`); a schema that cannot be compiled (an unknown dialect, a `$ref` to
 *   another document) fails the call too, saying so: a result that cannot be checked is not trusted.
 * - Compiled checks are cached per tool list and made lazily, on a tool's first call: listing 2,000 tools compiles
 *   nothing, and a new list (a `list_changed`, a TTL's end) starts a new cache. Ajv is loaded with the first
 *   compilation (see `internal/JsonSchemaCheck`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Result from "effect/Result"
import type * as JsonSchemaCheck from "../internal/JsonSchemaCheck.ts"
import { StructuredContentInvalid } from "../McpError.ts"
import type { CallToolResult } from "../Protocol.ts"
import type { DiscoveredTool } from "../Tool.ts"

/** The check of one session's tool results. */
export interface OutputSchemas {
  /** The tools of a list the session just got (a list answered again from the TTL cache is the same list). */
  readonly listed: (tools: ReadonlyArray<DiscoveredTool>) => void
  /** `result` of `tool`, checked (see the module's description). */
  readonly check: (tool: string, result: CallToolResult) => Effect.Effect<CallToolResult, StructuredContentInvalid>
}

/** What the check needs of its session. */
export interface Config {
  readonly server: string
  /** Off: every result is returned unchecked. */
  readonly enabled: boolean
  readonly compiler: JsonSchemaCheck.Compiler
  /** Scrubs server text (property names, patterns) before it goes into an error. */
  readonly scrub: (text: string) => string
}

interface Listing {
  readonly tools: ReadonlyArray<DiscoveredTool>
  /** By name, made on the first check. */
  byName: Map<string, DiscoveredTool> | undefined
  readonly checks: Map<string, Result.Result<JsonSchemaCheck.Check, string>>
}

/** The check of one session. */
export const make = (config: Config): OutputSchemas => {
  const { compiler, scrub, server } = config
  let listing: Listing | undefined

  const invalid = (tool: string, path: string, detail: string) =>
    new StructuredContentInvalid({ server, tool, path: scrub(path), detail: scrub(detail) })

  /** The outcome of a compiled check, at once (the hot path: no effect beyond the result). */
  const verdict = (
    tool: string,
    result: CallToolResult,
    compiled: Result.Result<JsonSchemaCheck.Check, string>
  ): Effect.Effect<CallToolResult, StructuredContentInvalid> => {
    if (compiled._tag === "Failure") {
      return Effect.fail(invalid(tool, "", `the outputSchema cannot be checked: ${compiled.failure}`))
    }
    const failure = compiled.success(result.structuredContent)
    return failure === undefined ? Effect.succeed(result) : Effect.fail(invalid(tool, failure.path, failure.detail))
  }

  return {
    listed: (tools) => {
      if (!config.enabled || listing?.tools === tools) return
      listing = { tools, byName: undefined, checks: new Map() }
    },
    check: (tool, result) => {
      const current = listing
      if (current === undefined || result.isError === true) return Effect.succeed(result)
      current.byName ??= new Map(current.tools.map((t) => [t.name, t]))
      const schema = current.byName.get(tool)?.outputSchema
      if (schema === undefined) return Effect.succeed(result)
      if (result.structuredContent === undefined) {
        return Effect.fail(
          invalid(tool, "", "the tool declares an outputSchema, but the result has no structuredContent")
        )
      }
      const cached = current.checks.get(tool)
      if (cached !== undefined) return verdict(tool, result, cached)
      // A tool's first call of this list: compile (Ajv loads with the first one), keep the outcome either way.
      return compiler.compile(schema).pipe(
        Effect.result,
        Effect.flatMap((compiled) => {
          current.checks.set(tool, compiled)
          return verdict(tool, result, compiled)
        })
      )
    }
  }
}
