/**
 * The same program with a Redis URL (nothing listens there: the layer builds degraded): the import test's control,
 * which must load the Redis side.
 */
import { TokenStore } from "@mcp-fleet/auth"
import { SharedState } from "@mcp-fleet/gateway"
import * as SecureRandom from "effect/crypto/SecureRandom"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"

const program = Effect.gen(function*() {
  const state = yield* SharedState.SharedState
  return SharedState.describe(yield* state.status).line
})

await Effect.runPromise(
  program.pipe(
    Effect.provide(
      SharedState.layer({
        redis: { url: Redacted.make("redis://127.0.0.1:1"), reconnect: Schedule.recurs(0) },
        tokens: TokenStore.layerMemory
      }).pipe(Layer.provide(SecureRandom.layerWebCrypto))
    )
  )
)
