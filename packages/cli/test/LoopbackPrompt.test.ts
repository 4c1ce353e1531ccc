import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as LoopbackPrompt from "../src/LoopbackPrompt.ts"

const request = (redirectUri: string) => ({
  url: new URL("https://as.example/authorize?client_id=c&state=s1"),
  redirectUri
})

describe("LoopbackPrompt", () => {
  it.effect("listens on 127.0.0.1 (random port), shows the URL, and returns what the redirect brought", () =>
    Effect.gen(function*() {
      const shown = yield* Deferred.make<string>()
      const loopback = yield* LoopbackPrompt.make({ show: (url) => Deferred.succeed(shown, url) })
      assert.match(loopback.redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/)
      const fiber = yield* Effect.forkChild(loopback.prompt.authorize(request(loopback.redirectUri)))
      assert.strictEqual(yield* Deferred.await(shown), "https://as.example/authorize?client_id=c&state=s1")
      const other = yield* Effect.promise(() => fetch(new URL("/elsewhere", loopback.redirectUri)))
      assert.strictEqual(other.status, 404)
      const page = yield* Effect.promise(() => fetch(`${loopback.redirectUri}?code=the-code&state=s1&iss=x`))
      assert.strictEqual(page.status, 200)
      const callback = yield* Fiber.join(fiber)
      assert.strictEqual(Redacted.value(callback.code!), "the-code")
      assert.deepInclude(callback, { state: "s1", iss: "x", error: undefined })
    }).pipe(Effect.scoped))

  it.effect("nobody comes back: a typed PromptFailed at the deadline, not a hang", () =>
    Effect.gen(function*() {
      const shown = yield* Deferred.make<void>()
      const loopback = yield* LoopbackPrompt.make({
        timeout: "2 minutes",
        show: () => Deferred.succeed(shown, undefined)
      })
      const fiber = yield* Effect.forkChild(Effect.flip(loopback.prompt.authorize(request(loopback.redirectUri))))
      yield* Deferred.await(shown)
      yield* TestClock.adjust("2 minutes")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "PromptFailed")
      assert.strictEqual(
        error.message,
        `The authorization prompt failed: nobody came back to ${loopback.redirectUri} within 2m.`
      )
    }).pipe(Effect.scoped))
})
