/**
 * ListChanges: triggers become list_changed only when a fingerprint changed, one per quiet window (TestClock).
 * "Nothing was emitted" is shown by the next emission being exactly the next real change.
 */
import { assert, describe, it } from "@effect/vitest"
import { ListChanges } from "@mcp-fleet/gateway"
import { type Duration, Effect, Option, Queue, Ref, Stream } from "effect"
import { TestClock } from "effect/testing"

const tool = (name: string, description = "d") => ({ name, description, inputSchema: { type: "object" } })
const empty: ListChanges.Catalog = { tools: [], resources: [], resourceTemplates: [], prompts: [] }

/** A running watcher: its catalog, its trigger queue, its reads and its output, as events. */
const harness = (initial: ListChanges.Catalog, options: { readonly every?: Duration.Input } = {}) =>
  Effect.gen(function*() {
    const catalog = yield* Ref.make(initial)
    const triggers = yield* Queue.unbounded<void>()
    const reads = yield* Queue.unbounded<void>()
    const out = yield* Queue.unbounded<ReadonlyArray<ListChanges.Kind>>()
    yield* ListChanges.watch({
      triggers: Stream.fromQueue(triggers),
      read: Ref.get(catalog).pipe(Effect.tap(() => Queue.offer(reads, undefined))),
      window: "100 millis",
      ...(options.every !== undefined ? { every: options.every } : {})
    }).pipe(Stream.runForEach((kinds) => Queue.offer(out, kinds)), Effect.forkScoped)
    yield* Queue.take(reads) // the baseline
    const trigger = Queue.offer(triggers, undefined)
    const set = (next: ListChanges.Catalog) => Ref.set(catalog, next)
    return { trigger, set, reads, out }
  })

describe("ListChanges", () => {
  it.effect("a real change after a quiet window is one notification of its kind", () =>
    Effect.gen(function*() {
      const h = yield* harness(empty)
      yield* h.set({ ...empty, tools: [tool("a")] })
      yield* h.trigger
      yield* TestClock.adjust("100 millis")
      assert.deepStrictEqual(yield* Queue.take(h.out), ["tools"])
    }))

  it.effect("a burst of triggers is read once, after the window closes", () =>
    Effect.gen(function*() {
      const h = yield* harness(empty)
      for (let i = 0; i < 5; i++) {
        yield* h.set({ ...empty, tools: [tool(`t${i}`)] })
        yield* h.trigger
        yield* TestClock.adjust("90 millis")
      }
      assert.isTrue(Option.isNone(yield* Queue.poll(h.reads)), "read before the window closed")
      yield* TestClock.adjust("10 millis")
      assert.deepStrictEqual(yield* Queue.take(h.out), ["tools"])
      assert.strictEqual((yield* Queue.takeAll(h.reads)).length, 1)
    }))

  it.effect("no change, a reconnect listing the same tools in another order, or a change undone: nothing", () =>
    Effect.gen(function*() {
      const start: ListChanges.Catalog = {
        ...empty,
        tools: [tool("a"), { inputSchema: { type: "object" }, description: "d", name: "b" }]
      }
      const h = yield* harness(start)
      yield* h.trigger
      yield* TestClock.adjust("100 millis")
      yield* Queue.take(h.reads)
      // The same tools, listed in another order with keys in another order.
      yield* h.set({ ...empty, tools: [{ name: "b", description: "d", inputSchema: { type: "object" } }, tool("a")] })
      yield* h.trigger
      yield* TestClock.adjust("100 millis")
      yield* Queue.take(h.reads)
      // A change undone within the window.
      yield* h.set({ ...empty, tools: [tool("a")] })
      yield* h.trigger
      yield* h.set(start)
      yield* h.trigger
      yield* TestClock.adjust("100 millis")
      yield* Queue.take(h.reads)
      // The next real change is the first thing emitted: nothing came before it.
      yield* h.set({ ...start, prompts: [{ name: "p" }] })
      yield* h.trigger
      yield* TestClock.adjust("100 millis")
      assert.deepStrictEqual(yield* Queue.take(h.out), ["prompts"])
    }))

  it.effect("a description change counts; resources and templates are one kind; kinds in a fixed order", () =>
    Effect.gen(function*() {
      const h = yield* harness({ ...empty, tools: [tool("a")] })
      yield* h.set({
        tools: [tool("a", "new words")],
        resources: [],
        resourceTemplates: [{ uriTemplate: "file:///{p}" }],
        prompts: [{ name: "p" }]
      })
      yield* h.trigger
      yield* TestClock.adjust("100 millis")
      assert.deepStrictEqual(yield* Queue.take(h.out), ["prompts", "resources", "tools"])
    }))

  it.effect("every: a source without events is checked on a fixed spacing", () =>
    Effect.gen(function*() {
      const h = yield* harness(empty, { every: "1 second" })
      yield* h.set({ ...empty, resources: [{ uri: "x://1" }] })
      yield* TestClock.adjust("1100 millis")
      assert.deepStrictEqual(yield* Queue.take(h.out), ["resources"])
    }))

  it("fingerprints ignore order of items and keys, and see any other difference", () => {
    const a = ListChanges.fingerprint({ ...empty, tools: [tool("x"), tool("y")] })
    const b = ListChanges.fingerprint({
      ...empty,
      tools: [tool("y"), { inputSchema: { type: "object" }, description: "d", name: "x" }]
    })
    assert.deepStrictEqual(a, b)
    const c = ListChanges.fingerprint({ ...empty, tools: [tool("x"), tool("y", "other")] })
    assert.deepStrictEqual(ListChanges.diff(a, c), ["tools"])
  })
})
