import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, FileSystem, Layer, Logger, Option, Redacted, References } from "effect"
import { TestClock } from "effect/testing"
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
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

/** Warnings logged while the effect runs. */
const captureWarnings = (logged: Array<string>) =>
  Layer.mergeAll(
    Logger.layer([Logger.make((options) => {
      const annotations = options.fiber.getRef(References.CurrentLogAnnotations)
      logged.push(`${String(options.message)} ${JSON.stringify(annotations)} ${Cause.pretty(options.cause)}`)
    })]),
    Layer.succeed(References.MinimumLogLevel, "Warn")
  )

/** The store built over `dir` with a file system that counts the reads of its file. */
const countingStore = (dir: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const counts = { reads: 0 }
    const counted = FileSystem.FileSystem.of({
      ...fs,
      readFileString: (path, encoding) =>
        Effect.suspend(() => {
          if (path.endsWith(FileTokenStore.FILE_NAME)) counts.reads++
          return fs.readFileString(path, encoding)
        })
    })
    const store = yield* FileTokenStore.make(dir).pipe(Effect.provideService(FileSystem.FileSystem, counted))
    return { store, counts }
  })

const accessToken = (found: Option.Option<TokenStore.Tokens>) =>
  Option.match(found, { onNone: () => "none", onSome: (t) => Redacted.value(t.accessToken) })

/** A store file as an earlier mcp-fleet wrote it after `expires_in: 1e308`: one entry's expiresAt is null. */
const poisoned = (good: string, bad: string) =>
  JSON.stringify({
    version: 1,
    tokens: {
      [good]: { issuer: "https://as.example", accessToken: "at-good", obtainedAt: 1, expiresAt: 2, scope: "a" },
      [bad]: { issuer: "https://evil.example", accessToken: "at-bad", obtainedAt: 1, expiresAt: null }
    },
    clients: {
      "https://as.example": { issuer: "https://as.example", clientId: "c1", authMethod: "none", source: "dynamic" }
    }
  })

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

  it.effect("one undecodable entry is dropped with a warning naming its server; every other entry survives", () => {
    const logged: Array<string> = []
    return Effect.gen(function*() {
      const dir = yield* tempDir
      const file = join(dir, FileTokenStore.FILE_NAME)
      writeFileSync(file, poisoned("https://good.example/mcp", "https://evil.example/mcp"), { mode: 0o600 })
      const store = yield* FileTokenStore.make(dir)
      const good = Option.getOrThrow(yield* store.getTokens("https://good.example/mcp"))
      assert.strictEqual(Redacted.value(good.accessToken), "at-good")
      assert.isTrue(Option.isSome(yield* store.getClient("https://as.example")), "the clients survive too")
      assert.isTrue(Option.isNone(yield* store.getTokens("https://evil.example/mcp")))
      const warnings = logged.filter((l) => l.includes("could not decode"))
      assert.strictEqual(warnings.length, 1, "warned once, not at every lookup")
      assert.include(warnings[0], "the tokens of https://evil.example/mcp")
      assert.notInclude(logged.join("\n"), "at-bad")

      // The next write keeps the good entry and the new one; the file as it was is kept aside.
      yield* store.setTokens("https://new.example/mcp", tokens)
      const other = yield* FileTokenStore.make(dir)
      assert.isTrue(Option.isSome(yield* other.getTokens("https://good.example/mcp")))
      assert.isTrue(Option.isSome(yield* other.getTokens("https://new.example/mcp")))
      assert.include(readFileSync(`${file}.corrupt`, "utf8"), "at-bad")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer), Effect.provide(captureWarnings(logged)))
  })

  it.effect("a tokens entry with an infinite expiry is written as no expiry, never as null", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const store = yield* FileTokenStore.make(dir)
      yield* store.setTokens("https://a.example/mcp", { ...tokens, expiresAt: Number.POSITIVE_INFINITY })
      yield* store.setTokens("https://b.example/mcp", tokens)
      assert.notInclude(readFileSync(join(dir, FileTokenStore.FILE_NAME), "utf8"), "null")
      const other = yield* FileTokenStore.make(dir)
      assert.isUndefined(Option.getOrThrow(yield* other.getTokens("https://a.example/mcp")).expiresAt)
      assert.isTrue(Option.isSome(yield* other.getTokens("https://b.example/mcp")))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("an earlier .corrupt file is never overwritten: the next one is .corrupt.1", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = join(dir, FileTokenStore.FILE_NAME)
      const store = yield* FileTokenStore.make(dir)
      writeFileSync(file, "first garbage")
      yield* store.setTokens("https://mcp.example/mcp", tokens)
      writeFileSync(file, "second garbage")
      yield* store.setTokens("https://mcp.example/mcp", tokens)
      assert.strictEqual(readFileSync(`${file}.corrupt`, "utf8"), "first garbage")
      assert.strictEqual(readFileSync(`${file}.corrupt.1`, "utf8"), "second garbage")
      assert.isTrue(Option.isSome(yield* store.getTokens("https://mcp.example/mcp")))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("an existing directory open to others (0755) is tightened to 0700", () =>
    Effect.gen(function*() {
      const dir = join(yield* tempDir, "open")
      mkdirSync(dir, { mode: 0o755 })
      chmodSync(dir, 0o755)
      yield* FileTokenStore.make(dir)
      assert.strictEqual(statSync(dir).mode & 0o777, 0o700, "tightened at construction")
      chmodSync(dir, 0o777)
      const store = yield* FileTokenStore.make(join(dir, "."))
      chmodSync(dir, 0o755)
      yield* store.setTokens("https://mcp.example/mcp", tokens)
      assert.strictEqual(statSync(dir).mode & 0o777, 0o700, "and again before a write")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("a symlinked directory is refused with a clear error; its 0777 target is left alone", () =>
    Effect.gen(function*() {
      const root = yield* tempDir
      const target = join(root, "target")
      mkdirSync(target)
      chmodSync(target, 0o777)
      const link = join(root, "link")
      symlinkSync(target, link)
      for (const named of [link, `${link}/`]) {
        const error = yield* Effect.flip(FileTokenStore.make(named))
        assert.strictEqual(error._tag, "TokenDirectoryRefused")
        assert.strictEqual(
          error.message,
          `The token directory ${link} cannot be used: it is a symbolic link; tokens are kept only in a real directory.`
        )
      }
      assert.strictEqual(statSync(target).mode & 0o777, 0o777)
      assert.deepStrictEqual(readdirSync(target), [])

      // A directory swapped for a link after construction: the write is refused, nothing lands in the target.
      const dir = join(root, "swapped")
      mkdirSync(dir, { mode: 0o700 })
      const store = yield* FileTokenStore.make(dir)
      rmSync(dir, { recursive: true })
      symlinkSync(target, dir)
      yield* store.setTokens("https://mcp.example/mcp", tokens)
      assert.deepStrictEqual(readdirSync(target), [])
      assert.isTrue(lstatSync(dir).isSymbolicLink())
      assert.isFalse(existsSync(join(target, FileTokenStore.FILE_NAME)))

      const notDir = join(root, "file")
      writeFileSync(notDir, "")
      assert.include((yield* Effect.flip(FileTokenStore.make(notDir))).message, "it is not a directory")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("a lookup reads the file only once it changed; a change by another process is seen at the next lookup", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = join(dir, FileTokenStore.FILE_NAME)
      const { counts, store } = yield* countingStore(dir)
      const other = yield* FileTokenStore.make(dir)
      const server = "https://mcp.example/mcp"
      assert.strictEqual(accessToken(yield* store.getTokens(server)), "none")
      assert.strictEqual(counts.reads, 0, "a missing file is not read")

      yield* other.setTokens(server, tokens)
      // Just written: read at each lookup while the change is within the timestamps' resolution (two seconds).
      yield* TestClock.setTime(statSync(file).mtimeMs + 1_000)
      assert.strictEqual(accessToken(yield* store.getTokens(server)), "at-secret-1")
      assert.strictEqual(accessToken(yield* store.getTokens(server)), "at-secret-1")
      assert.strictEqual(counts.reads, 2, "a file changed a second ago is read at each lookup")
      yield* TestClock.setTime(statSync(file).mtimeMs + 2_000)
      assert.strictEqual(accessToken(yield* store.getTokens(server)), "at-secret-1")
      assert.strictEqual(accessToken(yield* store.getTokens(server)), "at-secret-1")
      assert.strictEqual(accessToken(yield* store.getTokens(server)), "at-secret-1")
      assert.strictEqual(counts.reads, 3, "a settled, unchanged file is read once")

      yield* other.setTokens(server, { ...tokens, accessToken: Redacted.make("at-secret-2") })
      assert.strictEqual(accessToken(yield* store.getTokens(server)), "at-secret-2")
      assert.strictEqual(counts.reads, 4)

      // Edited in place (no rename): its size changes, so the lookup sees it.
      const edited = JSON.parse(readFileSync(file, "utf8"))
      edited.tokens[server].accessToken = "at-secret-edited"
      writeFileSync(file, JSON.stringify(edited))
      assert.strictEqual(accessToken(yield* store.getTokens(server)), "at-secret-edited")

      rmSync(file)
      assert.strictEqual(accessToken(yield* store.getTokens(server)), "none")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("lookups made together share one read of the file", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const { counts, store } = yield* countingStore(dir)
      yield* (yield* FileTokenStore.make(dir)).setTokens("https://mcp.example/mcp", tokens)
      const found = yield* Effect.all(
        Array.from({ length: 16 }, () => store.getTokens("https://mcp.example/mcp")),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(found.map(accessToken), Array.from({ length: 16 }, () => "at-secret-1"))
      assert.strictEqual(counts.reads, 1)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
