/**
 * A program that builds the gateway's shared state with no Redis configured and uses each part once (the import
 * test runs it in a fresh process and lists what it loaded).
 */
import { TokenStore } from "@mcp-fleet/auth"
import { ChangeBus, ResultStore, SharedState } from "@mcp-fleet/gateway"
import * as SecureRandom from "effect/crypto/SecureRandom"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const program = Effect.gen(function*() {
  const bus = yield* ChangeBus.ChangeBus
  yield* bus.publish({ _tag: "ConfigChanged", revision: "r1" })
  const results = yield* ResultStore.ResultStore
  yield* results.spill({ content: [{ type: "text", text: "x".repeat(100_000) }] })
  const tokens = yield* TokenStore.TokenStore
  yield* tokens.getTokens("https://mcp.example/mcp")
  const state = yield* SharedState.SharedState
  return SharedState.describe(yield* state.status).line
})

await Effect.runPromise(
  program.pipe(
    Effect.provide(
      SharedState.layer({ tokens: TokenStore.layerMemory }).pipe(Layer.provide(SecureRandom.layerWebCrypto))
    )
  )
)
