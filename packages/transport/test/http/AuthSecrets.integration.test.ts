/**
 * The OAuth token a request carried is a secret the session knows (issue 25: no secret in any library error): a
 * remote tool whose JSON-RPC error echoes the request's headers gives a `RemoteError` without the bearer token,
 * while a successful result stays the server's data, untouched. Real undici, the fake authorization server.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { AuthorizationPrompt, McpAuth, TokenStore } from "@mcp-fleet/auth"
import { startAuthServer } from "@mcp-fleet/fake-server/auth-server"
import { McpClient } from "@mcp-fleet/transport"
import { Cause, Effect, Layer, Logger, References } from "effect"

const logged: Array<string> = []
const AuthLive = McpAuth.layer({ clientName: "mcp-fleet secrets test", redirectUri: "http://127.0.0.1:8976/cb" }).pipe(
  Layer.provideMerge(Layer.mergeAll(AuthorizationPrompt.layerHeadless, TokenStore.layerMemory)),
  Layer.provideMerge(NodeHttpClient.layerUndici),
  Layer.provideMerge(Layer.mergeAll(
    Logger.layer([Logger.make((options) => {
      logged.push(
        `${String(options.message)} ${JSON.stringify(options.fiber.getRef(References.CurrentLogAnnotations))} ${
          Cause.pretty(options.cause)
        }`
      )
    })]),
    Layer.succeed(References.MinimumLogLevel, "Debug")
  ))
)

describe("the bearer token in server text", () => {
  it.live("a JSON-RPC error echoing the bearer token: the RemoteError and the logs hold <redacted>; a result is the server's", () =>
    Effect.gen(function*() {
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => startAuthServer({ echoHeaders: true })),
        (s) => Effect.promise(() => s.close())
      )
      const { error, result } = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.make({ url: server.mcpUrl, transport: "http", name: "echo" })
        yield* client.awaitReady
        const result = yield* client.callTool("whoami", {})
        const error = yield* Effect.flip(client.callTool("whoami", { outcome: "error" }))
        return { error, result }
      }))
      const bearer = String(server.requests.findLast((r) => r.path === "/mcp")?.headers["authorization"])
      assert.match(bearer, /^Bearer at-/)
      assert.include(JSON.stringify(result.content), bearer.slice(7), "the result is the server's data, untouched")
      assert.include(error.message, "authorized; you sent")
      assert.include(error.message, "<redacted>")
      for (const text of [error.message, JSON.stringify(error), ...logged]) {
        assert.notInclude(text, bearer.slice(7))
      }
    }).pipe(Effect.provide(AuthLive)))
})
