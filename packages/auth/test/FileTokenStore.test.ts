import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FileTokenStore } from "../src/index.ts"
import type { TokenStore } from "../src/index.ts"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "mcp-fleet-tokens-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const tokens: TokenStore.Tokens = {
  issuer: "https://as.example",
  accessToken: Redacted.make("at-secret-1"),
  refreshToken: Redacted.make("rt-secret-1"),
  expiresAt: 2_000,
  obtainedAt: 1_000,
  scope: "mcp:read"
}

describe("FileTokenStore", () => {
  it.effect("round-trips tokens and clients through a 0600 file in a 0700 directory, read afresh by another store", () =>
    Effect.gen(function*() {
      const dir = join(yield* tempDir, "mcp-fleet")
      const store = yield* FileTokenStore.make(dir)
      yield* store.setTokens("https://mcp.example/mcp", tokens)
      yield* store.setClient("https://as.example", {
        issuer: "https://as.example",
        clientId: "client-1",
        clientSecret: Redacted.make("cs-secret-1"),
        authMethod: "client_secret_basic",
        source: "dynamic"
      })
      const file = join(dir, FileTokenStore.FILE_NAME)
      assert.strictEqual(statSync(file).mode & 0o777, 0o600)
      assert.strictEqual(statSync(dir).mode & 0o777, 0o700)
      assert.deepStrictEqual(readdirSync(dir), [FileTokenStore.FILE_NAME], "no temporary file is left behind")

      const other = yield* FileTokenStore.make(dir)
      const read = Option.getOrThrow(yield* other.getTokens("https://mcp.example/mcp"))
      assert.strictEqual(Redacted.value(read.accessToken), "at-secret-1")
      assert.strictEqual(Redacted.value(read.refreshToken!), "rt-secret-1")
      assert.deepInclude(read, { issuer: "https://as.example", expiresAt: 2_000, obtainedAt: 1_000, scope: "mcp:read" })
      const client = Option.getOrThrow(yield* other.getClient("https://as.example"))
      assert.strictEqual(Redacted.value(client.clientSecret!), "cs-secret-1")
      assert.isTrue(Option.isNone(yield* other.getClient("https://other.example")))

      yield* other.removeTokens("https://mcp.example/mcp")
      assert.isTrue(Option.isNone(yield* store.getTokens("https://mcp.example/mcp")))
      assert.isTrue(Option.isSome(yield* store.getClient("https://as.example")), "logout keeps the registration")
      assert.strictEqual(statSync(file).mode & 0o777, 0o600)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("a file that is not a token store reads as empty and is moved aside, not overwritten, on the next write", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = join(dir, FileTokenStore.FILE_NAME)
      writeFileSync(file, "{ not json")
      const store = yield* FileTokenStore.make(dir)
      assert.isTrue(Option.isNone(yield* store.getTokens("https://mcp.example/mcp")))
      yield* store.setTokens("https://mcp.example/mcp", tokens)
      assert.strictEqual(readFileSync(`${file}.corrupt`, "utf8"), "{ not json")
      assert.isTrue(Option.isSome(yield* store.getTokens("https://mcp.example/mcp")))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
