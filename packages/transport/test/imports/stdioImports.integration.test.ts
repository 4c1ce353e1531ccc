/**
 * A stdio-only program does not load the HTTP side: importing `@mcp-fleet/transport` (or its `McpClient`) in a
 * fresh process loads neither the HTTP wires, nor `effect/http`'s client, nor SSE parsing, nor `@mcp-fleet/auth`'s
 * OAuth machinery. They load on the first remote session (`McpClient.http`), which the HTTP tests exercise. The one
 * module of auth a stdio program loads is its errors' (`AuthError.ts`, Schema classes only): `AuthorizationRequired`
 * is one class, auth's, and the transport's error unions and scrubbing name it.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { LoadedModules } from "@mcp-fleet/testing"
import { Effect } from "effect"

const loadedBy = (specifier: string) =>
  LoadedModules.loadedBy(specifier, { cwd: import.meta.dirname }).pipe(Effect.provide(NodeServices.layer))

/** What a stdio-only program never needs, by the end of its URL. */
const httpSide: ReadonlyArray<RegExp> = [
  /\/wire\/LegacySse\.ts$/,
  /\/wire\/StreamableHttp\.ts$/,
  /\/wire\/http\/(Exchange|SseReader|Body)\.ts$/,
  /\/effect\/dist\/http\/HttpClient\.js$/,
  /\/effect\/dist\/encoding\/Sse\.js$/,
  /\/auth\/src\/(?!AuthError\.ts$)[^/]+\.ts$/
]

describe("what the stdio path imports", () => {
  for (const specifier of ["@mcp-fleet/transport", "@mcp-fleet/transport/McpClient"]) {
    it.live(`${specifier} loads no module of the HTTP side`, () =>
      Effect.gen(function*() {
        const loaded = yield* loadedBy(specifier)
        // The hook saw the import itself (so an empty list cannot pass).
        assert.isTrue(loaded.some((url) => url.endsWith("/src/McpClient.ts")), "McpClient.ts was loaded")
        assert.isTrue(loaded.some((url) => url.endsWith("/wire/Stdio.ts")), "Stdio.ts was loaded")
        const http = loaded.filter((url) => httpSide.some((pattern) => pattern.test(url)))
        assert.deepStrictEqual(http, [])
        // Nor the JSON Schema validator of output schemas (Ajv loads with the first schema compiled), nor the YAML
        // parser of skills' frontmatter (with the first skill loaded).
        assert.deepStrictEqual(loaded.filter((url) => /\/(ajv|yaml)\//.test(url)), [])
      }))
  }
})
