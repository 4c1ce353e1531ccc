/**
 * The decoders of the wire shapes the client reads (initialize, tools/call and tools/list results, tools), built
 * once, with the Schemas compiled by `effect/schema/SchemaJITCompiler`.
 *
 * Compiling matters on the hot path: measured on this package's schemas, decoding a `CallToolResult` went from
 * about 3.2 to 0.9 µs and a `DiscoveredTool` from about 6.5 to 1.1 µs (a 2,000-tool scan decodes 2,000 tools).
 * The compiler is `@stability unstable` in effect 4.1, and it is safe to lean on here because:
 * - it changes nothing observable: the compiled decoders return the same values (absent keys stay absent) and
 *   the same `SchemaError` messages as the interpreter, which `test/internal/WireDecoders.test.ts` checks over a
 *   generated corpus of valid and broken shapes;
 * - it falls back to the interpreter on its own when code generation fails or `new Function` is blocked (a
 *   content-security policy), so nothing here depends on it being available;
 * - it is enabled for our own ASTs only (`enable(ast)`, not the global `install`), so other schemas in the
 *   user's program keep whatever the user chose.
 *
 * `enable` must run before the decoders are first used; it runs when this module loads.
 *
 * @internal
 */
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as SchemaJITCompiler from "effect/schema/SchemaJITCompiler"
import { CallToolResult, InitializeResult } from "../Protocol.ts"
import { DiscoveredTool } from "../Tool.ts"

/** One page of `tools/list`: the tools stay undecoded here so that one bad tool can be skipped and reported. */
const ListPage = Schema.Struct({
  tools: Schema.Array(Schema.Unknown),
  nextCursor: Schema.optionalKey(Schema.String)
})

for (const schema of [InitializeResult, CallToolResult, DiscoveredTool, ListPage]) {
  SchemaJITCompiler.enable(schema.ast)
}

/**
 * A decoder that checks first and copies never. These schemas transform nothing: decoding validates and builds a
 * copy (with the same keys for the `StructWithRest` shapes; the page envelope's copy would also drop keys nobody
 * reads). So a value the schema's guard accepts is returned as it came from `JSON.parse`, and only a value it
 * rejects goes through the decoder, for its error message. Measured in process (compiled both ways): 2,000 listed
 * tools 0.37 → 0.19 ms, a `tools/call` result 0.10 → 0.06 µs, and no copies left for the collector.
 * `test/internal/WireDecoders.test.ts` checks that it accepts what the interpreted schemas accept, with the same
 * values and absent keys (key order aside), and fails with the same messages.
 */
const checkThenDecode = <S extends Schema.Top & Schema.ConstraintDecoder<unknown>>(schema: S) => {
  const is = Schema.is(schema)
  const decode = Schema.decodeUnknownExit(schema)
  return (input: unknown): Exit.Exit<S["Type"], Schema.SchemaError> => is(input) ? Exit.succeed(input) : decode(input)
}

/** Decodes the server's `initialize` result. */
export const decodeInitialize = Schema.decodeUnknownExit(InitializeResult)

/** Decodes a `tools/call` result. */
export const decodeCallResult = checkThenDecode(CallToolResult)

/** Decodes one listed tool. */
export const decodeTool = checkThenDecode(DiscoveredTool)

/** Decodes one `tools/list` page (the envelope only). */
export const decodePage = checkThenDecode(ListPage)
