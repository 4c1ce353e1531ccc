/**
 * ResultStore: small results pass untouched; large ones become a head and a resource_link whose pages give the
 * whole text back; ids are from SecureRandom; the TTL runs on TestClock; the store stays within its bounds.
 */
import { assert, describe, it } from "@effect/vitest"
import { GatewayError, ResultStore } from "@mcp-fleet/gateway"
import type { Protocol } from "@mcp-fleet/transport"
import { Effect, Layer } from "effect"
import * as SecureRandom from "effect/crypto/SecureRandom"
import { TestClock } from "effect/testing"

const text = (t: string): Protocol.ContentBlock => ({ type: "text", text: t })
const result = (...content: Array<Protocol.ContentBlock>): Protocol.CallToolResult => ({ content })

const store = (options: ResultStore.Options) =>
  ResultStore.make(options).pipe(Effect.provide(SecureRandom.layerWebCrypto))

/** The text of a block or a resource's contents. */
const textOf = (block: unknown): string => {
  if (typeof block === "object" && block !== null && "text" in block && typeof block.text === "string") {
    return block.text
  }
  return assert.fail(`no text in ${JSON.stringify(block)}`)
}

const linkOf = (r: Protocol.CallToolResult) => {
  const link = r.content.find((b) => b.type === "resource_link")
  if (link === undefined || typeof link["uri"] !== "string" || typeof link["size"] !== "number") {
    return assert.fail("no resource_link")
  }
  return { uri: link["uri"], size: link["size"] }
}

const nextOf = (page: { readonly _meta?: { readonly [key: string]: unknown } }): string | undefined => {
  const next = page._meta?.["mcp-fleet/next"]
  return typeof next === "string" ? next : undefined
}

/** Reads every page from the link, following `mcp-fleet/next`. */
const readAll = (s: ResultStore.ResultStore["Service"], uri: string) =>
  Effect.gen(function*() {
    let next: string | undefined = uri
    let whole = ""
    let pages = 0
    while (next !== undefined) {
      const page = yield* s.read(next)
      whole += textOf(page.contents[0])
      pages++
      next = nextOf(page)
    }
    return { whole, pages }
  })

describe("ResultStore", () => {
  it.effect("textChars measures what spill measures: at the threshold a result passes, one more it is stored", () =>
    Effect.gen(function*() {
      const s = yield* store({ threshold: 20 })
      const image: Protocol.ContentBlock = { type: "image", data: "AAAA", mimeType: "image/png" }
      for (
        const content of [
          [text("x".repeat(20))],
          [text("x".repeat(9)), text("y".repeat(9))],
          [text("x".repeat(9)), image, text("y".repeat(9))],
          [text("x".repeat(21))],
          [text("x".repeat(9)), text("y".repeat(10))],
          [image]
        ]
      ) {
        const r = result(...content)
        const spilled = (yield* s.spill(r)) !== r
        assert.strictEqual(ResultStore.textChars(r.content) > 20, spilled, JSON.stringify(content))
      }
      assert.strictEqual(ResultStore.textChars("not content"), 0)
      assert.strictEqual(ResultStore.thresholdOf({}), 80_000)
    }))

  it.effect("a result within the threshold is returned as it is", () =>
    Effect.gen(function*() {
      const s = yield* store({ threshold: 100 })
      const small = result(text("x".repeat(100)))
      assert.strictEqual(yield* s.spill(small), small)
      assert.deepStrictEqual(yield* s.size, { entries: 0, chars: 0 })
    }))

  it.effect("a larger one: its head, the other blocks, a resource_link; the pages give the whole text back", () =>
    Effect.gen(function*() {
      const s = yield* store({ threshold: 100, headChars: 10, pageChars: 64 })
      const big = "0123456789".repeat(30)
      const image = { type: "image", data: "AAAA", mimeType: "image/png" }
      const spilled = yield* s.spill({
        content: [text(big.slice(0, 150)), image, text(big.slice(150))],
        structuredContent: { huge: big },
        isError: true
      })
      const whole = `${big.slice(0, 150)}\n\n${big.slice(150)}`
      assert.strictEqual(spilled.isError, true)
      assert.strictEqual(spilled.structuredContent, undefined)
      assert.strictEqual(spilled.content.length, 3)
      assert.deepStrictEqual(spilled.content[1], image)
      const head = textOf(spilled.content[0])
      assert.isTrue(head.startsWith("0123456789\n\n[mcp-fleet: this result is 302 characters"))
      const link = linkOf(spilled)
      assert.match(link.uri, /^fleet:\/\/results\/[A-Za-z0-9_-]{22}$/)
      assert.strictEqual(link.size, 302)
      assert.include(head, link.uri)
      const read = yield* readAll(s, link.uri)
      assert.deepStrictEqual(read, { whole, pages: 5 })
      const last = yield* s.read(`${link.uri}?page=5`)
      assert.deepStrictEqual(last._meta, { "mcp-fleet/page": 5, "mcp-fleet/pages": 5 })
    }))

  it.effect("ids come from SecureRandom: 16 bytes, base64url, different each time", () =>
    Effect.gen(function*() {
      const fixed = yield* ResultStore.make({ threshold: 1 }).pipe(
        Effect.provide(Layer.succeed(SecureRandom.SecureRandom, SecureRandom.make((n) => new Uint8Array(n).fill(255))))
      )
      assert.strictEqual(linkOf(yield* fixed.spill(result(text("ab")))).uri, "fleet://results/_____________________w")
      const s = yield* store({ threshold: 1 })
      const uris = new Set<string>()
      for (let i = 0; i < 50; i++) uris.add(linkOf(yield* s.spill(result(text("ab")))).uri)
      assert.strictEqual(uris.size, 50)
    }))

  it.effect("an entry lives ttl from when it was stored (TestClock)", () =>
    Effect.gen(function*() {
      const s = yield* store({ threshold: 1, ttl: "10 minutes" })
      const { uri } = linkOf(yield* s.spill(result(text("hello"))))
      yield* TestClock.adjust("10 minutes")
      yield* TestClock.adjust(-1)
      assert.strictEqual(textOf((yield* s.read(uri)).contents[0]), "hello")
      yield* TestClock.adjust(1)
      const error = yield* Effect.flip(s.read(uri))
      assert.instanceOf(error, GatewayError.ResultNotFound)
      assert.strictEqual(
        error.message,
        `The result ${uri} is unknown or no longer kept (results are kept 600 s, and the oldest go first when the store is full); call the tool again.`
      )
      assert.deepStrictEqual(yield* s.size, { entries: 0, chars: 0 })
    }))

  it.effect("bounded: the oldest go when maxEntries or maxChars would be passed", () =>
    Effect.gen(function*() {
      const s = yield* store({ threshold: 1, maxEntries: 2, maxChars: 10 })
      const a = linkOf(yield* s.spill(result(text("aaaa")))).uri
      const b = linkOf(yield* s.spill(result(text("bbbb")))).uri
      const c = linkOf(yield* s.spill(result(text("cccc")))).uri
      assert.deepStrictEqual(yield* s.size, { entries: 2, chars: 8 })
      assert.instanceOf(yield* Effect.flip(s.read(a)), GatewayError.ResultNotFound)
      const d = linkOf(yield* s.spill(result(text("dddddddd")))).uri
      assert.deepStrictEqual(yield* s.size, { entries: 1, chars: 8 })
      assert.instanceOf(yield* Effect.flip(s.read(b)), GatewayError.ResultNotFound)
      assert.instanceOf(yield* Effect.flip(s.read(c)), GatewayError.ResultNotFound)
      assert.strictEqual(textOf((yield* s.read(d)).contents[0]), "dddddddd")
    }))

  it.effect("a text larger than the whole store is not kept: the head and a note, no link", () =>
    Effect.gen(function*() {
      const s = yield* store({ threshold: 1, maxChars: 10, headChars: 3 })
      const spilled = yield* s.spill(result(text("x".repeat(20))))
      assert.strictEqual(spilled.content.length, 1)
      assert.match(
        textOf(spilled.content[0]),
        /^xxx\n\n\[mcp-fleet: .*The rest was not kept/
      )
      assert.deepStrictEqual(yield* s.size, { entries: 0, chars: 0 })
    }))

  it.effect("pages never split a surrogate pair", () =>
    Effect.gen(function*() {
      const s = yield* store({ threshold: 1, pageChars: 3, headChars: 1 })
      const emoji = "😀".repeat(5)
      const spilled = yield* s.spill(result(text(emoji)))
      assert.isTrue(textOf(spilled.content[0]).startsWith("\n\n[mcp-fleet"))
      const { uri } = linkOf(spilled)
      const pages: Array<string> = []
      let next: string | undefined = uri
      while (next !== undefined) {
        const page = yield* s.read(next)
        pages.push(textOf(page.contents[0]))
        next = nextOf(page)
      }
      assert.strictEqual(pages.join(""), emoji)
      assert.isTrue(pages.every((p) => !/^[\uDC00-\uDFFF]/.test(p) && !/[\uD800-\uDBFF]$/.test(p)))
    }))

  it.effect("a page out of range or a malformed URI is InvalidResultUri", () =>
    Effect.gen(function*() {
      const s = yield* store({ threshold: 1 })
      const { uri } = linkOf(yield* s.spill(result(text("hello"))))
      const out = yield* Effect.flip(s.read(`${uri}?page=2`))
      assert.instanceOf(out, GatewayError.InvalidResultUri)
      assert.strictEqual(out.message, `${uri}?page=2 is not a readable result page: it has 1 page.`)
      for (const bad of [`${uri}?page=0`, `${uri}?p=1`, "fleet://results/short", "file:///x"]) {
        assert.instanceOf(yield* Effect.flip(s.read(bad)), GatewayError.InvalidResultUri)
      }
      assert.isTrue(ResultStore.isResultUri(uri))
    }))
})
