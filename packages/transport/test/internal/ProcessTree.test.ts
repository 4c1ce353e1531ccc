/**
 * `ProcessTree` (issue 24, item 10): the descendants of a server read from the process table, whatever their
 * session or group, and the bounded SIGTERM → SIGKILL ladder that ends them. The table is an in-memory fake and
 * time is the `TestClock`.
 */
import { assert, describe, it } from "@effect/vitest"
import { ProcessTree } from "@mcp-fleet/transport"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as Fake from "../fakeProcessTree.ts"

const { entry, SELF } = Fake

describe("ProcessTree.descendants", () => {
  const table = [
    entry(1, 0),
    entry(SELF, 1),
    entry(100, SELF), // the server
    entry(101, 100), // its child, in its group
    entry(102, 100), // a child that called setsid: the table links it all the same
    entry(103, 102), // and that one's child
    entry(200, SELF), // another server of this process
    entry(201, 200),
    entry(300, 1) // someone else's
  ]

  it("every descendant of the server, parents first, and nothing else", () => {
    assert.deepStrictEqual(ProcessTree.descendants(table, 100, SELF).map((e) => e.pid), [101, 102, 103])
    assert.deepStrictEqual(ProcessTree.descendants(table, 101, SELF), [], "101 is not this process's child")
  })

  it("none when the server is not in the table, or is not this process's child (a reused pid)", () => {
    assert.deepStrictEqual(ProcessTree.descendants(table, 999, SELF), [])
    assert.deepStrictEqual(ProcessTree.descendants(table, 300, SELF), [])
  })

  it("a cycle in a torn read of the table does not loop", () => {
    const torn = [entry(100, SELF), entry(101, 102), entry(102, 101), entry(103, 100), entry(104, 104)]
    assert.deepStrictEqual(ProcessTree.descendants(torn, 100, SELF).map((e) => e.pid), [103])
  })
})

describe("ProcessTree.survivors", () => {
  it("the same pid with the same start, and not a zombie", () => {
    const collected = [entry(101, 100), entry(102, 100), entry(103, 100)]
    const now = [entry(101, 1), entry(102, 1, { start: "reused" }), entry(103, 1, { zombie: true })]
    assert.deepStrictEqual(ProcessTree.survivors(collected, now).map((e) => e.pid), [101])
  })
})

describe("ProcessTree parsing", () => {
  it("parseStat reads the parent and start after the last parenthesis (names may hold spaces and parentheses)", () => {
    const fields = "S 4242 123 123 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100"
    assert.deepStrictEqual(ProcessTree.parseStat(`777 (my (odd) name) ${fields}\n`), {
      pid: 777,
      ppid: 4242,
      start: "987654",
      zombie: false
    })
    assert.isTrue(ProcessTree.parseStat(`778 (z) Z ${fields.slice(2)}`)?.zombie)
    assert.isUndefined(ProcessTree.parseStat("garbage"))
    assert.isUndefined(ProcessTree.parseStat("12 (short) S 1"))
  })

  it("parsePs reads pid, ppid, state and the start time (which holds spaces)", () => {
    const output = [
      "    1     0 Ss   Mon Jan  1 10:00:00 2024",
      "  777  4242 S+   Tue Feb 13 09:41:07 2024",
      "  778   777 Z    Tue Feb 13 09:41:08 2024",
      "junk"
    ].join("\n")
    assert.deepStrictEqual(ProcessTree.parsePs(output), [
      { pid: 1, ppid: 0, start: "Mon Jan  1 10:00:00 2024", zombie: false },
      { pid: 777, ppid: 4242, start: "Tue Feb 13 09:41:07 2024", zombie: false },
      { pid: 778, ppid: 777, start: "Tue Feb 13 09:41:08 2024", zombie: true }
    ])
  })
})

describe("ProcessTree.reap: the ladder for descendants, bounded", () => {
  const KILL_GRACE = 3_000

  it.effect("descendants that obey SIGTERM: SIGTERM to each, no SIGKILL, done at once", () =>
    Effect.gen(function*() {
      const fake = Fake.make([entry(100, SELF), entry(101, 100), entry(102, 100)])
      const strays = yield* ProcessTree.collect(fake.service, 100)
      const left = yield* ProcessTree.reap(fake.service, strays, { killGraceMs: KILL_GRACE })
      assert.deepStrictEqual(left, [])
      assert.deepStrictEqual(fake.signals(), ["101:SIGTERM@0", "102:SIGTERM@0"])
    }))

  it.effect("one that ignores SIGTERM gets SIGKILL at exactly killGrace", () =>
    Effect.gen(function*() {
      const fake = Fake.make([entry(100, SELF), entry(101, 100, { ignores: ["SIGTERM"] }), entry(102, 100)])
      const strays = yield* ProcessTree.collect(fake.service, 100)
      const reaping = yield* ProcessTree.reap(fake.service, strays, { killGraceMs: KILL_GRACE }).pipe(
        Effect.forkChild({ startImmediately: true })
      )
      yield* TestClock.adjust(KILL_GRACE - 1)
      assert.deepStrictEqual(fake.signals(), ["101:SIGTERM@0", "102:SIGTERM@0"], "no SIGKILL within killGrace")
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(yield* Fiber.join(reaping), [])
      assert.deepStrictEqual(fake.signals(), ["101:SIGTERM@0", "102:SIGTERM@0", `101:SIGKILL@${KILL_GRACE}`])
    }))

  it.effect("one that no signal ends: bounded by killGrace + AFTER_KILL_MS, and named as left", () =>
    Effect.gen(function*() {
      const fake = Fake.make([entry(100, SELF), entry(101, 100, { ignores: ["SIGTERM", "SIGKILL"] })])
      const strays = yield* ProcessTree.collect(fake.service, 100)
      const reaping = yield* ProcessTree.reap(fake.service, strays, { killGraceMs: KILL_GRACE }).pipe(
        Effect.forkChild({ startImmediately: true })
      )
      yield* TestClock.adjust(KILL_GRACE + ProcessTree.AFTER_KILL_MS - 1)
      assert.isUndefined(reaping.pollUnsafe(), "still waiting after SIGKILL")
      yield* TestClock.adjust(1)
      assert.deepStrictEqual((yield* Fiber.join(reaping)).map((e) => e.pid), [101])
      assert.deepStrictEqual(fake.signals(), ["101:SIGTERM@0", `101:SIGKILL@${KILL_GRACE}`])
    }))

  it.effect("force: SIGKILL at once, no SIGTERM", () =>
    Effect.gen(function*() {
      const fake = Fake.make([entry(100, SELF), entry(101, 100)])
      const strays = yield* ProcessTree.collect(fake.service, 100)
      assert.deepStrictEqual(
        yield* ProcessTree.reap(fake.service, strays, { killGraceMs: KILL_GRACE, force: true }),
        []
      )
      assert.deepStrictEqual(fake.signals(), ["101:SIGKILL@0"])
    }))

  it.effect("a pid reused by another process since it was collected is never signalled", () =>
    Effect.gen(function*() {
      const fake = Fake.make([entry(100, SELF), entry(101, 100), entry(102, 100)])
      const strays = yield* ProcessTree.collect(fake.service, 100)
      fake.put(entry(101, 1, { start: "someone else" }))
      fake.remove(102)
      assert.deepStrictEqual(yield* ProcessTree.reap(fake.service, strays, { killGraceMs: KILL_GRACE }), [])
      assert.deepStrictEqual(fake.signals(), [])
    }))

  it.effect("a table that cannot be read: nothing collected, nothing signalled", () =>
    Effect.gen(function*() {
      const fake = Fake.make([entry(100, SELF), entry(101, 100)], { unreadable: true })
      assert.deepStrictEqual(yield* ProcessTree.collect(fake.service, 100), [])
      const strays = [entry(101, 100)]
      assert.deepStrictEqual(yield* ProcessTree.reap(fake.service, strays, { killGraceMs: KILL_GRACE }), [])
      assert.deepStrictEqual(fake.signals(), [])
    }))

  it.effect("a table that never answers: each read is bounded by READ_BOUND_MS, and nothing is signalled", () =>
    Effect.gen(function*() {
      const fake = Fake.make([entry(100, SELF), entry(101, 100)], { hangs: true })
      const collecting = yield* ProcessTree.collect(fake.service, 100).pipe(
        Effect.forkChild({ startImmediately: true })
      )
      yield* TestClock.adjust(ProcessTree.READ_BOUND_MS)
      assert.deepStrictEqual(yield* Fiber.join(collecting), [])
      const reaping = yield* ProcessTree.reap(fake.service, [entry(101, 100)], { killGraceMs: KILL_GRACE }).pipe(
        Effect.forkChild({ startImmediately: true })
      )
      yield* TestClock.adjust(ProcessTree.READ_BOUND_MS)
      assert.deepStrictEqual(yield* Fiber.join(reaping), [])
      assert.deepStrictEqual(fake.signals(), [])
    }))
})
