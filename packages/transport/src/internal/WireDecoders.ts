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

/** Decodes the server's `initialize` result. */
export const decodeInitialize = Schema.decodeUnknownExit(InitializeResult)

/** Decodes a `tools/call` result. */
export const decodeCallResult = Schema.decodeUnknownExit(CallToolResult)

/** Decodes one listed tool. */
export const decodeTool = Schema.decodeUnknownExit(DiscoveredTool)

/** Decodes one `tools/list` page (the envelope only). */
export const decodePage = Schema.decodeUnknownExit(ListPage)
