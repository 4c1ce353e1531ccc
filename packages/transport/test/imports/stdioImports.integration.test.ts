/**
 * A stdio-only program does not load the HTTP side: importing `@mcp-fleet/transport` (or its `McpClient`) in a
 * fresh process loads neither the HTTP wires, nor `effect/http`'s client, nor SSE parsing, nor `@mcp-fleet/auth`.
 * They load on the first remote session (`RemoteClient.make`), which the HTTP tests exercise.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import { ChildProcess } from "effect/process"
import * as Path from "node:path"

const script = Path.join(import.meta.dirname, "fixtures", "loadedModules.ts")

const loadedBy = (specifier: string) =>
  Effect.gen(function*() {
    const handle = yield* ChildProcess.make(process.execPath, [script, specifier], { extendEnv: true })
    const out = yield* handle.stdout.pipe(Stream.decodeText(), Stream.mkString, Effect.forkScoped)
    const code = yield* handle.exitCode.pipe(Effect.timeout("60 seconds"))
    assert.strictEqual(code, 0)
    return JSON.parse(yield* Fiber.join(out)) as ReadonlyArray<string>
  }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))

/** What a stdio-only program never needs, by the end of its URL. */
const httpSide: ReadonlyArray<RegExp> = [
  /\/transport\/LegacySse\.ts$/,
  /\/transport\/StreamableHttp\.ts$/,
  /\/internal\/http\/(Exchange|SseReader|Body)\.ts$/,
  /\/effect\/dist\/http\/HttpClient\.js$/,
  /\/effect\/dist\/encoding\/Sse\.js$/,
  /\/auth\/src\/[^/]+\.ts$/
]

describe("what the stdio path imports", () => {
  for (const specifier of ["@mcp-fleet/transport", "@mcp-fleet/transport/McpClient"]) {
    it.live(`${specifier} loads no module of the HTTP side`, () =>
      Effect.gen(function*() {
        const loaded = yield* loadedBy(specifier)
        // The hook saw the import itself (so an empty list cannot pass).
        assert.isTrue(loaded.some((url) => url.endsWith("/src/McpClient.ts")), "McpClient.ts was loaded")
        assert.isTrue(loaded.some((url) => url.endsWith("/transport/Stdio.ts")), "Stdio.ts was loaded")
        const http = loaded.filter((url) => httpSide.some((pattern) => pattern.test(url)))
        assert.deepStrictEqual(http, [])
      }))
  }
})
