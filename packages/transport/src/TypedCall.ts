/**
 * Typed tool calls: `callTool(name, args, { schema })` decodes the result's `structuredContent` with the caller's
 * Schema.
 *
 * A result with `isError: true` is returned as it is (a tool error is a result, not a failure) and is not
 * decoded. A successful result without `structuredContent`, or with one the schema rejects, fails with
 * `StructuredContentInvalid`, the server's fault (`ErrorKind.isRetryable` is `false`).
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import type { McpClient } from "@mcp-fleet/transport"
 *
 * const Weather = Schema.Struct({ celsius: Schema.Number })
 * const program = (client: McpClient.McpClient) =>
 *   Effect.gen(function*() {
 *     const result = yield* client.callTool("weather", { city: "Oslo" }, { schema: Weather })
 *     return result.isError === true ? undefined : result.structured.celsius
 *   })
 * ```
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { StructuredContentInvalid } from "./McpError.ts"
import type { CallToolResult } from "./Protocol.ts"
import type { ToolCallOptions as CallOptions } from "./session/Context.ts"

/**
 * The options of a typed call: the usual ones plus the Schema of `structuredContent`.
 *
 * @since 0.3.0
 * @category models
 */
export interface TypedCallOptions<S extends Schema.Constraint> extends CallOptions {
  readonly schema: S
}

/**
 * A typed call's result: a tool error as it came (`structured` is `undefined`), or a success with its
 * `structuredContent` decoded as `structured`.
 *
 * @since 0.3.0
 * @category models
 */
export type TypedCallResult<A> =
  | (CallToolResult & { readonly isError: true; readonly structured: undefined })
  | (CallToolResult & { readonly isError?: false | undefined; readonly structured: A })

/**
 * A client's `callTool`: untyped, or typed when the options carry a `schema`.
 *
 * @since 0.3.0
 * @category models
 */
export interface CallTool<E> {
  <S extends Schema.Constraint>(
    name: string,
    args: Readonly<Record<string, unknown>> | undefined,
    options: TypedCallOptions<S>
  ): Effect.Effect<TypedCallResult<S["Type"]>, E | StructuredContentInvalid, S["DecodingServices"]>
  (name: string, args?: Readonly<Record<string, unknown>>, options?: CallOptions): Effect.Effect<CallToolResult, E>
}

/**
 * Decodes `result.structuredContent` with `schema` (see the module's description).
 *
 * @since 0.3.0
 * @category decoding
 */
export const decode = <S extends Schema.Constraint>(server: string, tool: string, schema: S) => {
  const decodeStructured = Schema.decodeUnknownEffect(schema)
  return (
    result: CallToolResult
  ): Effect.Effect<TypedCallResult<S["Type"]>, StructuredContentInvalid, S["DecodingServices"]> => {
    if (result.isError === true) return Effect.succeed({ ...result, isError: true, structured: undefined })
    if (result.structuredContent === undefined) {
      return Effect.fail(new StructuredContentInvalid({ server, tool, detail: "the result has no structuredContent" }))
    }
    return decodeStructured(result.structuredContent).pipe(
      Effect.map((structured) => ({ ...result, isError: false as const, structured })),
      Effect.mapError((error) => new StructuredContentInvalid({ server, tool, detail: error.message }))
    )
  }
}

/**
 * Gives an untyped `callTool` the typed overload: with `{ schema }` the result is decoded (`decode`), without it
 * the call is `call` itself (no extra step on the untyped path).
 *
 * @since 0.3.0
 * @category constructors
 */
export const withSchema = <E>(
  server: string,
  call: (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: CallOptions
  ) => Effect.Effect<CallToolResult, E>
): CallTool<E> => {
  function callTool<S extends Schema.Constraint>(
    name: string,
    args: Readonly<Record<string, unknown>> | undefined,
    options: TypedCallOptions<S>
  ): Effect.Effect<TypedCallResult<S["Type"]>, E | StructuredContentInvalid, S["DecodingServices"]>
  function callTool(
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: CallOptions
  ): Effect.Effect<CallToolResult, E>
  function callTool(
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: CallOptions | TypedCallOptions<Schema.Constraint>
  ): Effect.Effect<CallToolResult, E | StructuredContentInvalid, unknown> {
    if (options === undefined || !("schema" in options)) return call(name, args, options)
    return Effect.flatMap(call(name, args, options), decode(server, name, options.schema))
  }
  return callTool
}
