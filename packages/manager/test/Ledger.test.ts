/**
 * The ledger's change latches: a wait on one server (what `waitForReady` does) is woken by that server's
 * transitions and by the fleet's close, not by another server's. With one fleet-wide latch, 100 `waitForReady`s
 * on a starting fleet were woken 100 times per transition (5,150 wake-ups to all ready, counted; 200 with these).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Ledger from "../src/McpManager/Ledger.ts"
import * as Options from "../src/McpManager/Options.ts"

const servers = { a: { command: "a" }, b: { command: "b" } }

const makeLedger = Effect.gen(function*() {
  const resolved = yield* Options.resolve({ servers })
  return yield* Ledger.make(resolved, Object.entries(servers))
})

describe("Ledger.awaitChange", () => {
  it.effect("a wait on one server is woken by its own transition, not by another server's", () =>
    Effect.gen(function*() {
      const ledger = yield* makeLedger
      const onA = yield* Effect.forkChild(ledger.awaitChange("a"))
      const onB = yield* Effect.forkChild(ledger.awaitChange("b"))
      ledger.transition("b", { _tag: "Spawned", pid: 2 })
      // `onA` was forked first: had the transition of b released it, it would be done before `onB` is.
      yield* Fiber.join(onB)
      assert.isUndefined(onA.pollUnsafe(), "b's transition woke the wait on a")
      ledger.transition("a", { _tag: "Spawned", pid: 1 })
      yield* Fiber.join(onA)
    }).pipe(Effect.scoped))

  it.effect("the fleet-wide wait is woken by any server, and every wait by the fleet's close", () =>
    Effect.gen(function*() {
      const ledger = yield* makeLedger
      const any = yield* Effect.forkChild(ledger.awaitChange())
      ledger.transition("b", { _tag: "Spawned", pid: 2 })
      yield* Fiber.join(any)
      const onA = yield* Effect.forkChild(ledger.awaitChange("a"))
      ledger.close()
      yield* Fiber.join(onA)
    }).pipe(Effect.scoped))
})
