import { assert, it } from "@effect/vitest"
import { Cause, Effect, Layer, Logger, References } from "effect"
import { TestClock } from "effect/testing"
import { McpAuth } from "../src/index.ts"
import { authLayer, authServer, call, secretsSeen } from "./support.ts"

const logged: Array<string> = []
const capture = Logger.make((options) => {
  const annotations = options.fiber.getRef(References.CurrentLogAnnotations)
  logged.push(`${JSON.stringify(options.message)} ${JSON.stringify(annotations)} ${Cause.pretty(options.cause)}`)
})
const captureLayer = Layer.mergeAll(
  Logger.layer([capture]),
  Layer.succeed(References.MinimumLogLevel, "Debug")
)

it.effect("tokens, codes, verifiers and client secrets appear in no log, error or header rendering", () =>
  Effect.gen(function*() {
    // Authorization, a refresh that is refused, a fresh authorization, a step-up, an HTML token response.
    const server = yield* authServer({ revokedRefresh: true, expiresIn: 30, challengeScope: "a", requiredScope: "b" })
    assert.strictEqual(yield* call(server.mcpUrl), 200)
    yield* TestClock.adjust("16 seconds")
    const auth = yield* McpAuth.McpAuth
    assert.deepStrictEqual(yield* auth.headers(server.mcpUrl), {}) // the refused refresh dropped the tokens
    assert.strictEqual(yield* call(server.mcpUrl), 200)
    const headers = yield* auth.headers(server.mcpUrl)
    const html = yield* authServer({ htmlToken: true })
    const failure = yield* Effect.flip(call(html.mcpUrl))

    const bearers = server.requests.flatMap((r) => {
      const header = r.headers["authorization"]
      return typeof header === "string" && header.startsWith("Bearer ") ? [header.slice(7)] : []
    })
    const secrets = [...secretsSeen(server), ...secretsSeen(html), ...bearers]
    assert.isAtLeast(secrets.length, 8)
    assert.isTrue(logged.some((line) => line.includes("Token refresh failed")))
    const rendered = [
      ...logged,
      failure.message,
      String(failure),
      JSON.stringify(failure),
      String(headers["authorization"]),
      JSON.stringify(headers)
    ].join("\n")
    for (const secret of secrets) assert.notInclude(rendered, secret)
  }).pipe(Effect.provide(authLayer()), Effect.provide(captureLayer)))
