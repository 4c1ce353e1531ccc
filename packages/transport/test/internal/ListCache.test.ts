import { assert, describe, it } from "@effect/vitest"
import * as ListCache from "../../src/internal/ListCache.ts"

describe("ListCache", () => {
  it("keeps a list for its ttlMs, then drops it; ttlMs 0 or no hint keeps nothing", () => {
    const cache = ListCache.make<string>()
    cache.put("tools/list", cache.begin("tools/list"), "v1", { ttlMs: 1000 }, 0)
    assert.strictEqual(cache.get("tools/list", 999), "v1")
    assert.isUndefined(cache.get("tools/list", 1000))
    cache.put("tools/list", cache.begin("tools/list"), "v2", { ttlMs: 0 }, 0)
    assert.isUndefined(cache.get("tools/list", 1))
    cache.put("tools/list", cache.begin("tools/list"), "v3", undefined, 0)
    assert.isUndefined(cache.get("tools/list", 1))
    assert.deepStrictEqual(cache.stats(), { hits: 1, misses: 3, lastFromCache: { "tools/list": false } })
  })

  it("a list_changed drops its list, and a fetch that overlapped it is not kept", () => {
    const cache = ListCache.make<string>()
    cache.put("tools/list", cache.begin("tools/list"), "old", { ttlMs: 1000 }, 0)
    cache.observe("notifications/prompts/list_changed")
    assert.strictEqual(cache.get("tools/list", 1), "old")
    cache.observe("notifications/tools/list_changed")
    assert.isUndefined(cache.get("tools/list", 1))
    const token = cache.begin("tools/list")
    cache.observe("notifications/tools/list_changed")
    cache.put("tools/list", token, "maybe stale", { ttlMs: 1000 }, 2)
    assert.isUndefined(cache.get("tools/list", 3))
    // A (re-)opened listen stream starts afresh: every list is dropped.
    cache.put("tools/list", cache.begin("tools/list"), "v", { ttlMs: 1000 }, 3)
    cache.observe("notifications/subscriptions/acknowledged")
    assert.isUndefined(cache.get("tools/list", 4))
  })

  it("hints: a non-negative finite ttlMs; pages combine to the smallest, none if one page has none", () => {
    assert.deepStrictEqual(ListCache.hintOf({ ttlMs: 5, cacheScope: "public" }), { ttlMs: 5 })
    assert.isUndefined(ListCache.hintOf({ ttlMs: -1 }))
    assert.isUndefined(ListCache.hintOf({ ttlMs: "5" }))
    assert.isUndefined(ListCache.hintOf([]))
    assert.deepStrictEqual(ListCache.combine(null, { ttlMs: 9 }), { ttlMs: 9 })
    assert.deepStrictEqual(ListCache.combine({ ttlMs: 9 }, { ttlMs: 4 }), { ttlMs: 4 })
    assert.isUndefined(ListCache.combine({ ttlMs: 9 }, undefined))
  })
})
