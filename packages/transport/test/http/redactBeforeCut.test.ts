/**
 * Issue 24, item 9: redact before you cut. A server that echoes the `Authorization` header in an error body (or in
 * its `WWW-Authenticate` or `Retry-After` header) is cut to an excerpt for the error; the secret is replaced before
 * the cut, and a prefix of it left against the cut is replaced too. Each shape puts the token across its cut at
 * every offset where it straddles it, over real HTTP on 127.0.0.1.
 *
 * Before the fix the excerpt was cut first: 17 of a 24-character token showed when 17 characters of it stood before
 * the 160-character cut, and the session's redaction, which looks for the whole token, found nothing to replace.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Cause, Effect, Exit, Option, Redacted } from "effect"
import { assertNoPiece } from "../secretPieces.ts"
import { json, serve } from "./HttpPeer.ts"

const TOKEN = "tok_Z9qX3vK7mW2pL5nR8sT4"
const AUTH = `Bearer ${TOKEN}`

/** The offsets at which a 24-character token starts and straddles a cut after `cut` characters. */
const straddling = (cut: number) => Array.from({ length: TOKEN.length - 1 }, (_, i) => cut - TOKEN.length + 1 + i)

type Shape = "plain" | "jsonrpc" | "www-authenticate" | "retry-after"

/** Where each shape cuts, and what stands before the token in the text that is cut. */
const shapes: Record<Shape, { readonly cut: number; readonly before: string }> = {
  // A text body: the detail is its excerpt.
  plain: { cut: 160, before: "Authorization: Bearer " },
  // A JSON-RPC error body: the detail is the code and an excerpt of its message.
  jsonrpc: { cut: 160, before: "echo: Bearer " },
  // A 401's WWW-Authenticate, kept as an excerpt of 400 characters (the token alone: no "Bearer " before it).
  "www-authenticate": { cut: 400, before: "Bearer error_description=\"" },
  // A 503's Retry-After, kept as an excerpt of 64 characters.
  "retry-after": { cut: 64, before: "" }
}

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value
}

describe("redact before you cut: a secret a server echoes across an excerpt's cut", () => {
  it.live("a prefix of the token (8 to 23 characters) that ends at the 160-character cut is replaced too", () =>
    Effect.gen(function*() {
      const peer = yield* serve((request, res) => {
        const query = new URL(request.path, "http://x").searchParams
        const length = Number(query.get("length"))
        const token = String(request.headers["authorization"]).slice("Bearer ".length)
        // A server that echoes only the start of what it was sent, so no whole secret is there to be found.
        const text = `${"x".repeat(160 - length)}${token.slice(0, length)} ${"y".repeat(200)}`
        res.writeHead(500, { "content-type": "text/plain" }).end(text)
      })
      for (let length = 8; length < TOKEN.length; length++) {
        const client = yield* McpClient.http({
          url: `${peer.url}?length=${length}`,
          transport: "http",
          headers: { Authorization: Redacted.make(AUTH) }
        })
        const error = failureOf(yield* Effect.exit(client.awaitReady))
        assert.strictEqual(error._tag, "HttpStatusError")
        if (error._tag !== "HttpStatusError") return
        assert.include(error.detail, "<redacted>…", `the prefix of ${length} is replaced at the cut`)
        assertNoPiece(JSON.stringify(error), TOKEN, `a prefix of ${length} at the cut`)
      }
    }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)))

  for (const [shape, { before, cut }] of Object.entries(shapes) as Array<[Shape, typeof shapes[Shape]]>) {
    it.live(`${shape}: the token across the ${cut}-character cut, at each of its ${TOKEN.length - 1} offsets`, () =>
      Effect.gen(function*() {
        const peer = yield* serve((request, res) => {
          const query = new URL(request.path, "http://x").searchParams
          const pad = "x".repeat(Number(query.get("pad")))
          // The token as the client sent it (the header's value after "Bearer ").
          const token = String(request.headers["authorization"]).slice("Bearer ".length)
          // Text after the token too, so that the text is still cut once the token is replaced.
          const text = `${pad}${before}${token} ${"y".repeat(cut)}`
          if (shape === "plain") {
            res.writeHead(500, { "content-type": "text/plain" }).end(text)
          } else if (shape === "jsonrpc") {
            json(res, { jsonrpc: "2.0", id: null, error: { code: -32000, message: text } }, 500)
          } else if (shape === "www-authenticate") {
            res.writeHead(401, { "www-authenticate": `${text}"` }).end()
          } else {
            res.writeHead(503, { "retry-after": text }).end()
          }
        })
        for (const start of straddling(cut)) {
          const pad = start - before.length
          const client = yield* McpClient.http({
            url: `${peer.url}?pad=${pad}`,
            transport: "http",
            headers: { Authorization: Redacted.make(AUTH) }
          })
          const error = failureOf(yield* Effect.exit(client.awaitReady))
          assert.strictEqual(error._tag, "HttpStatusError")
          if (error._tag !== "HttpStatusError") return
          const cutText = shape === "www-authenticate"
            ? error.wwwAuthenticate ?? ""
            : shape === "retry-after"
            ? error.retryAfter ?? ""
            : error.detail
          assert.include(cutText, "…", `the ${shape} text was cut (token at ${start})`)
          for (const [where, text] of [["message", error.message], ["error", JSON.stringify(error)]] as const) {
            assertNoPiece(text, TOKEN, `${shape}, token at ${start}: the ${where}`)
          }
        }
        assert.isAtLeast(peer.requests.length, TOKEN.length - 1, "one session per offset reached the server")
      }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)))
  }
})
