/**
 * The large-result store over a real redis-server: a result spilled on one replica is read page by page from
 * another; the entry has a TTL in Redis and expires by the replicas' Clock (TestClock); the bounds hold for all
 * replicas together; bad pages and URIs get the store's typed errors.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import type { ResultStore } from "@mcp-fleet/gateway"
import { Daemons } from "@mcp-fleet/testing"
import type { Protocol } from "@mcp-fleet/transport"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as Replicas from "./support/Replicas.ts"

const options: ResultStore.Options = { threshold: 100, headChars: 10, pageChars: 300, ttl: "15 minutes", maxEntries: 2 }

const textOf = (seed: string, length = 1_000) => Array.from({ length }, (_, i) => seed[i % seed.length]).join("")
const big = (seed: string): Protocol.CallToolResult => ({ content: [{ type: "text", text: textOf(seed) }] })

const linkOf = (result: Protocol.CallToolResult): string => {
  const link = result.content.find((b) => b.type === "resource_link")
  return typeof link?.["uri"] === "string" ? link["uri"] : assert.fail("no resource_link")
}

const readAll = (store: ResultStore.ResultStore["Service"], uri: string) =>
  Effect.gen(function*() {
    let next: string | undefined = uri
    let text = ""
    let pages = 0
    while (next !== undefined) {
      const page: { readonly contents: ReadonlyArray<unknown>; readonly _meta?: Record<string, unknown> } = yield* store
        .read(next)
      const block = page.contents[0]
      text += typeof block === "object" && block !== null && "text" in block ? String(block.text) : ""
      pages++
      const following = page._meta?.["mcp-fleet/next"]
      next = typeof following === "string" ? following : undefined
    }
    return { text, pages }
  })

describe("ResultStore in Redis", () => {
  it.effect("spilled on one replica, read whole from the others; a TTL in Redis; expiry by Clock", () =>
    Effect.gen(function*() {
      const redis = yield* Daemons.redis()
      const [one, two, three] = yield* Effect.all([
        Replicas.replica(redis.url, { results: options }),
        Replicas.replica(redis.url, { results: options }),
        Replicas.replica(redis.url, { results: options })
      ])
      const whole = textOf("abcdefghij🙂")
      const uri = linkOf(yield* one.results.spill(big("abcdefghij🙂")))
      for (const replica of [two, three, one]) {
        const read = yield* readAll(replica.results, uri)
        assert.strictEqual(read.text, whole)
        assert.strictEqual(read.pages, 4)
      }
      // The entry has its TTL in Redis (it goes even if no replica ever looks again).
      const id = uri.slice("fleet://results/".length)
      const ttl = yield* one.connection.use("pttl", (r) => r.send<number>("PTTL", `mcp-fleet:results:${id}`)).pipe(
        Effect.orDie
      )
      assert.isTrue(ttl > 14 * 60_000 && ttl <= 15 * 60_000, `PTTL ${ttl}`)
      assert.deepStrictEqual(yield* two.results.size, { entries: 1, chars: whole.length })
      // Past the TTL by the replicas' Clock, no replica serves it.
      yield* TestClock.adjust("15 minutes")
      const gone = yield* Effect.flip(two.results.read(uri))
      assert.strictEqual(gone._tag, "ResultNotFound")
      assert.deepStrictEqual(yield* three.results.size, { entries: 0, chars: 0 })
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("the bounds hold for all replicas together: the oldest entry goes first", () =>
    Effect.gen(function*() {
      const redis = yield* Daemons.redis()
      const [one, two, three] = yield* Effect.all([
        Replicas.replica(redis.url, { results: options }),
        Replicas.replica(redis.url, { results: options }),
        Replicas.replica(redis.url, { results: options })
      ])
      const a = linkOf(yield* one.results.spill(big("a")))
      yield* TestClock.adjust("1 second")
      const b = linkOf(yield* two.results.spill(big("b")))
      yield* TestClock.adjust("1 second")
      const c = linkOf(yield* three.results.spill(big("c")))
      assert.strictEqual((yield* Effect.flip(three.results.read(a)))._tag, "ResultNotFound")
      assert.strictEqual((yield* readAll(one.results, b)).text, "b".repeat(1_000))
      assert.strictEqual((yield* readAll(two.results, c)).text, "c".repeat(1_000))
      assert.deepStrictEqual(yield* one.results.size, { entries: 2, chars: 2_000 })
      // A page past the last, or a URI that is not one of ours: typed errors.
      const past = yield* Effect.flip(two.results.read(`${b}?page=5`))
      assert.strictEqual(past._tag, "InvalidResultUri")
      assert.include(past.message, "it has 4 pages")
      assert.strictEqual((yield* Effect.flip(two.results.read("fleet://results/nope")))._tag, "InvalidResultUri")
      assert.strictEqual(
        (yield* Effect.flip(two.results.read("fleet://results/AAAAAAAAAAAAAAAAAAAAAA")))._tag,
        "ResultNotFound"
      )
    }).pipe(Effect.provide(NodeServices.layer)))
})
