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

  it.effect("a forged callback (wrong or missing state) from a local process gets 400; the listener keeps waiting for the real one", () =>
    Effect.gen(function*() {
      const shown = yield* Deferred.make<void>()
      const loopback = yield* LoopbackPrompt.make({ show: () => Deferred.succeed(shown, undefined) })
      const fiber = yield* Effect.forkChild(loopback.prompt.authorize(request(loopback.redirectUri)))
      yield* Deferred.await(shown)
      const hit = (query: string) =>
        Effect.promise(async () => {
          const response = await fetch(`${loopback.redirectUri}?${query}`)
          return { status: response.status, page: await response.text() }
        })
      for (const forged of ["code=evil&state=s2", "code=evil", "error=access_denied", "error=access_denied&state="]) {
        const answer = yield* hit(forged)
        assert.strictEqual(answer.status, 400, forged)
        assert.include(answer.page, "not the authorization mcp-fleet is waiting for")
      }
      assert.isUndefined(fiber.pollUnsafe(), "the forged callbacks did not end the prompt")
      assert.strictEqual((yield* hit("code=the-code&state=s1")).status, 200)
      const callback = yield* Fiber.join(fiber)
      assert.strictEqual(Redacted.value(callback.code!), "the-code")
      assert.strictEqual((yield* hit("code=the-code&state=s1")).status, 400, "a replay is refused too")
    }).pipe(Effect.scoped))

  it.effect("only forged callbacks: the prompt still waits until its deadline, then fails typed", () =>
    Effect.gen(function*() {
      const shown = yield* Deferred.make<void>()
      const loopback = yield* LoopbackPrompt.make({
        timeout: "2 minutes",
        show: () => Deferred.succeed(shown, undefined)
      })
      const fiber = yield* Effect.forkChild(Effect.flip(loopback.prompt.authorize(request(loopback.redirectUri))))
      yield* Deferred.await(shown)
      const forged = yield* Effect.promise(() => fetch(`${loopback.redirectUri}?code=evil&state=wrong`))
      assert.strictEqual(forged.status, 400)
      yield* TestClock.adjust("119 seconds")
      assert.isUndefined(fiber.pollUnsafe(), "still waiting a second before the deadline")
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "PromptFailed")
      assert.include(error.message, "nobody came back to")
    }).pipe(Effect.scoped))
})
