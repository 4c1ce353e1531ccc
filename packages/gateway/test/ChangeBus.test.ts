/**
 * ChangeBus in process: a subscriber gets what is published after it subscribed, each change once within the
 * window (by key, TestClock), the same change again after it, a different one at once, and every Resync.
 */
import { assert, describe, it } from "@effect/vitest"
import { ChangeBus } from "@mcp-fleet/gateway"
import { Effect, PubSub } from "effect"
import { TestClock } from "effect/testing"

const tools = (fingerprint: string): ChangeBus.Change => ({
  _tag: "ListChanged",
  server: "github",
  kinds: ["tools"],
  fingerprint
})

const bus = Effect.flatMap(ChangeBus.ChangeBus, Effect.succeed).pipe(Effect.provide(ChangeBus.layerInProcess()))

describe("ChangeBus (in process)", () => {
  it.effect("each change once within the window, again after it; others and Resync at once", () =>
    Effect.gen(function*() {
      const changes = yield* bus
      const subscription = yield* changes.subscribe
      yield* changes.publish(tools("A"))
      yield* changes.publish(tools("A"))
      yield* changes.publish({ _tag: "ListChanged", server: "github", kinds: ["tools"], fingerprint: "B" })
      yield* changes.publish({ _tag: "ConfigChanged", revision: "r1" })
      yield* changes.publish({ _tag: "ConfigChanged", revision: "r1" })
      yield* changes.publish({ _tag: "Resync" })
      yield* changes.publish({ _tag: "Resync" })
      assert.deepStrictEqual((yield* PubSub.takeAll(subscription)).map(ChangeBus.keyOf), [
        "list:github:tools:A",
        "list:github:tools:B",
        "config:r1",
        "resync",
        "resync"
      ])
      yield* TestClock.adjust("9 seconds")
      yield* changes.publish(tools("A"))
      assert.strictEqual(yield* PubSub.remaining(subscription), 0)
      yield* TestClock.adjust("1 second")
      yield* changes.publish(tools("A"))
      assert.deepStrictEqual((yield* PubSub.takeAll(subscription)).map(ChangeBus.keyOf), ["list:github:tools:A"])
    }))

  it.effect("the key ignores the order of kinds", () =>
    Effect.sync(() => {
      const a = ChangeBus.keyOf({ _tag: "ListChanged", server: "s", kinds: ["tools", "prompts"], fingerprint: "f" })
      const b = ChangeBus.keyOf({ _tag: "ListChanged", server: "s", kinds: ["prompts", "tools"], fingerprint: "f" })
      assert.strictEqual(a, b)
    }))
})
