/**
 * The security audit's attacks (issue 25), each against real undici and a hostile party on 127.0.0.0/8: a hostile
 * authorization server, a local service on another port that a server would like the client to reach, a server
 * "off loopback" played through virtual host names (`https://mcp.example` → a fake on 127.0.0.1).
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Layer, Logger, Option, Redacted, References } from "effect"
import type { HttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AuthorizationPrompt, FileTokenStore, McpAuth, TokenResponse, TokenStore } from "../src/index.ts"
import {
  authLayer,
  authLayerWith,
  authServer,
  call,
  hostileService,
  hostileServiceAnswering,
  paths,
  secretsSeen,
  virtualHosts
} from "./support.ts"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "mcp-fleet-attacks-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const logged: Array<string> = []
const captureLogs = Layer.mergeAll(
  Logger.layer([Logger.make((options) => {
    const annotations = options.fiber.getRef(References.CurrentLogAnnotations)
    logged.push(`${String(options.message)} ${JSON.stringify(annotations)} ${Cause.pretty(options.cause)}`)
  })]),
  Layer.succeed(References.MinimumLogLevel, "Debug")
)

const unattended = AuthorizationPrompt.layerUnavailable("nobody to ask here")

/** A hostile lifetime written into the token response the fake would have sent. */
const withLifetime = (raw: string) => (issued: Record<string, unknown>) =>
  JSON.stringify(issued).replace(/"expires_in":\d+/, `"expires_in":${raw}`)

const REMOTE = "https://mcp.example"
const REMOTE_AS = "https://as.example"

/** The fake's documents as a server off loopback would publish them (virtual origins in place of 127.0.0.1). */
const remoteDocuments = (mcp: string, as: string) => ({
  prmDocument: (doc: Record<string, unknown>) => ({
    ...doc,
    resource: `${mcp}/mcp`,
    authorization_servers: [as]
  }),
  asMetadata: (doc: Record<string, unknown>) => ({
    ...doc,
    issuer: as,
    authorization_endpoint: `${as}/authorize`,
    token_endpoint: `${as}/token`,
    registration_endpoint: `${as}/register`
  }),
  resourceMetadataUrl: `${mcp}/.well-known/oauth-protected-resource/mcp`
})

describe("the audit's attacks", () => {
  it.effect("medium 1: expires_in 1e308 from one authorization server leaves every other server's tokens intact", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const store = Layer.succeed(
        TokenStore.TokenStore,
        yield* FileTokenStore.make(dir).pipe(Effect.provide(NodeServices.layer))
      )
      const good = yield* authServer({})
      const hostile = yield* authServer({ tokenJson: withLifetime("1e308") })
      const run = <A, E>(effect: Effect.Effect<A, E, McpAuth.McpAuth | HttpClient.HttpClient>) =>
        effect.pipe(Effect.provide(authLayerWith(NodeHttpClient.layerUndici, {}, undefined, store)))
      assert.strictEqual(yield* run(call(good.mcpUrl)), 200)
      assert.strictEqual(yield* run(call(hostile.mcpUrl)), 200)

      const fresh = yield* FileTokenStore.make(dir).pipe(Effect.provide(NodeServices.layer))
      const kept = yield* fresh.getTokens(good.mcpUrl)
      assert.isTrue(Option.isSome(kept), "the good server's tokens survive the hostile response")
      const clamped = Option.getOrThrow(yield* fresh.getTokens(hostile.mcpUrl))
      assert.isTrue(Number.isFinite(clamped.expiresAt), "the hostile lifetime is clamped, finite")
      assert.isAtMost(clamped.expiresAt! - clamped.obtainedAt, TokenResponse.MAX_EXPIRES_IN_SECONDS * 1000)

      // A lifetime JSON cannot even hold as a number (1e400 parses to Infinity): refused, typed; nothing kept.
      const infinite = yield* authServer({ tokenJson: withLifetime("1e400") })
      const error = yield* Effect.flip(run(call(infinite.mcpUrl)))
      assert.include(error.message, "the response its expires_in is not a finite number")
      assert.isTrue(Option.isNone(yield* fresh.getTokens(infinite.mcpUrl)))
      assert.isTrue(Option.isSome(yield* fresh.getTokens(good.mcpUrl)))
    }).pipe(Effect.scoped))

  it.effect("medium 2: unattended, the flow stops after discovery: no registration, no token request, nothing to the local service the metadata names", () =>
    Effect.gen(function*() {
      const hostile = yield* hostileService
      const server = yield* authServer({
        asMetadata: (doc) => ({
          ...doc,
          registration_endpoint: `${hostile.origin}/admin/reset-everything?confirm=yes`,
          token_endpoint: `${hostile.origin}/admin/token`
        })
      })
      const error = yield* Effect.flip(
        call(server.mcpUrl).pipe(
          Effect.provide(authLayerWith(NodeHttpClient.layerUndici, {}, unattended))
        )
      )
      assert.deepStrictEqual(hostile.received, [], "the local service was never reached")
      assert.strictEqual(error._tag, "AuthorizationRequired")
      assert.include(error.message, "The authorization prompt failed: nobody to ask here.")
      assert.deepStrictEqual(paths(server), [
        "POST /mcp",
        "GET /.well-known/oauth-protected-resource/mcp",
        "GET /.well-known/oauth-authorization-server"
      ])
    }).pipe(Effect.scoped))

  it.effect("medium 2 / low 4: a server off loopback whose metadata names a loopback registration endpoint: the document is discarded, the local service never reached", () =>
    Effect.gen(function*() {
      const hostile = yield* hostileService
      const server = yield* authServer({ separateAuthorizationServer: true, ...remoteDocuments(REMOTE, REMOTE_AS) })
      const documents = remoteDocuments(REMOTE, REMOTE_AS)
      const attacked = yield* authServer({
        separateAuthorizationServer: true,
        ...documents,
        asMetadata: (doc) => ({
          ...documents.asMetadata(doc),
          registration_endpoint: `${hostile.origin}/admin/reset-everything`
        })
      })
      const http = virtualHosts({ [REMOTE]: attacked.origin, [REMOTE_AS]: attacked.asOrigin })
      const error = yield* Effect.flip(call(`${REMOTE}/mcp`).pipe(Effect.provide(authLayerWith(http))))
      assert.include(error.message, "No authorization server metadata was found")
      assert.include(
        error.message,
        `(its registration endpoint ${hostile.origin}/admin/reset-everything was refused: it is on the loopback interface and the MCP server is not)`
      )
      assert.deepStrictEqual(hostile.received, [])
      assert.notInclude(paths(attacked), "GET /authorize")

      // The same server with honest metadata completes: the virtual setup itself works.
      const honest = virtualHosts({ [REMOTE]: server.origin, [REMOTE_AS]: server.asOrigin })
      assert.strictEqual(yield* call(`${REMOTE}/mcp`).pipe(Effect.provide(authLayerWith(honest))), 200)
    }).pipe(Effect.scoped))

  it.effect("low 4: a resource_metadata URL naming a local service is never fetched; discovery goes on at the well-known URL", () =>
    Effect.gen(function*() {
      const hostile = yield* hostileService
      const server = yield* authServer({
        separateAuthorizationServer: true,
        ...remoteDocuments(REMOTE, REMOTE_AS),
        resourceMetadataUrl: `${hostile.origin}/internal/secrets?all=1`
      })
      const http = virtualHosts({ [REMOTE]: server.origin, [REMOTE_AS]: server.asOrigin })
      assert.strictEqual(yield* call(`${REMOTE}/mcp`).pipe(Effect.provide(authLayerWith(http))), 200)
      assert.deepStrictEqual(hostile.received, [], "no blind GET to the local service")
      assert.isTrue(logged.some((l) => l.includes("Refused a protected resource metadata URL")))
    }).pipe(Effect.scoped, Effect.provide(captureLogs)))

  it.effect("low 3: a plain-HTTP server off loopback is never sent a bearer token, even one held; the refusal is typed", () =>
    Effect.gen(function*() {
      const server = yield* authServer({})
      const http = virtualHosts({ "http://mcp.example": server.origin })
      const store = yield* TokenStore.makeMemory
      yield* store.setTokens("http://mcp.example/mcp", {
        issuer: server.issuer,
        accessToken: Redacted.make("at-held-before"),
        refreshToken: undefined,
        expiresAt: undefined,
        obtainedAt: 0,
        scope: undefined
      })
      const layer = authLayerWith(http, {}, undefined, Layer.succeed(TokenStore.TokenStore, store))
      const error = yield* Effect.flip(call("http://mcp.example/mcp").pipe(Effect.provide(layer)))
      assert.strictEqual(error._tag, "AuthorizationRequired")
      assert.include(
        error.message,
        "The MCP server http://mcp.example/mcp is plain HTTP off the loopback interface, and a bearer token is never sent over cleartext"
      )
      assert.isTrue(server.requests.every((r) => r.headers["authorization"] === undefined), "no token over cleartext")
      assert.deepStrictEqual(paths(server), ["POST /mcp"], "no discovery, no authorization")
    }).pipe(Effect.scoped))

  it.effect("low 5: a client secret (client_secret_basic) echoed by the authorization server is in no error and no refresh warning", () =>
    Effect.gen(function*() {
      const refused = yield* authServer({ echoClientSecret: true })
      const failure = yield* Effect.flip(call(refused.mcpUrl))
      const echoing = yield* authServer({ echoClientSecret: "refresh", expiresIn: 30 })
      assert.strictEqual(yield* call(echoing.mcpUrl), 200)
      yield* TestClock.adjust("16 seconds")
      const auth = yield* McpAuth.McpAuth
      assert.deepStrictEqual(yield* auth.headers(echoing.mcpUrl), {}, "the failed refresh dropped the tokens")
      const basics = [...refused.requests, ...echoing.requests].flatMap((r) => {
        const header = r.headers["authorization"]
        return typeof header === "string" && header.startsWith("Basic ") ? [header] : []
      })
      assert.isAtLeast(basics.length, 2)
      const secrets = [
        ...basics,
        ...basics.map((b) => b.slice(6)),
        ...basics.map((b) => decodeURIComponent(Buffer.from(b.slice(6), "base64").toString("utf8").split(":")[1]!)),
        ...secretsSeen(refused),
        ...secretsSeen(echoing)
      ]
      assert.include(failure.message, "with error invalid_client ***")
      const warning = logged.find((l) => l.includes("Token refresh failed"))
      assert.include(warning, "invalid_client ***")
      const rendered = [...logged, failure.message, String(failure), JSON.stringify(failure)].join("\n")
      for (const secret of secrets) assert.notInclude(rendered, secret)
    }).pipe(Effect.scoped, Effect.provide(authLayer()), Effect.provide(captureLogs)))

  it.effect("low 6: metadata for a broader resource does not widen the token: resource is the server's canonical URI", () =>
    Effect.gen(function*() {
      // The document's resource is the server's origin: a parent path of /mcp, accepted for discovery.
      const server = yield* authServer({
        prmDocument: (doc): Record<string, unknown> => ({ ...doc, resource: new URL(String(doc["resource"])).origin })
      })
      assert.strictEqual(yield* call(server.mcpUrl), 200)
      const authorize = server.requests.find((r) => r.path === "/authorize")
      const token = server.requests.find((r) => r.path === "/token")
      assert.strictEqual(authorize?.query["resource"], server.mcpUrl)
      assert.strictEqual(token?.form["resource"], server.mcpUrl)
    }).pipe(Effect.scoped, Effect.provide(authLayer())))

  it.effect("low 6: the origin's root metadata, reached by the spec's fallback, is sent as published; pointed at by the server, it is not", () =>
    Effect.gen(function*() {
      const origin = (doc: Record<string, unknown>): Record<string, unknown> => ({
        ...doc,
        resource: new URL(String(doc["resource"])).origin
      })
      // No hint, nothing at /.well-known/oauth-protected-resource/mcp: the root document describes the origin
      // (RFC 9728 §3.3), and the conformance suite's metadata-var2 asks for its resource exactly as published.
      const fallback = yield* authServer({ prm: "root", prmDocument: origin })
      assert.strictEqual(yield* call(fallback.mcpUrl), 200)
      assert.strictEqual(fallback.requests.find((r) => r.path === "/authorize")?.query["resource"], fallback.origin)
      // The same root document named by the server's own challenge: the token is asked for the server only.
      const hinted = yield* authServer({
        prm: "root",
        prmDocument: origin,
        resourceMetadataUrl: "/.well-known/oauth-protected-resource"
      })
      assert.strictEqual(yield* call(hinted.mcpUrl), 200)
      assert.strictEqual(hinted.requests.find((r) => r.path === "/authorize")?.query["resource"], hinted.mcpUrl)
      assert.strictEqual(hinted.requests.find((r) => r.path === "/token")?.form["resource"], hinted.mcpUrl)
    }).pipe(Effect.scoped, Effect.provide(authLayer())))

  it.effect("an authorization server on its own origin never sees Authorization: Bearer (authorize, refresh, step-up)", () =>
    Effect.gen(function*() {
      const server = yield* authServer({
        separateAuthorizationServer: true,
        expiresIn: 30,
        challengeScope: "a",
        requiredScope: "b"
      })
      assert.notStrictEqual(server.asOrigin, server.origin)
      assert.strictEqual(yield* call(server.mcpUrl), 200) // 401 → authorize (a), 403 → step-up (a b)
      yield* TestClock.adjust("16 seconds")
      assert.strictEqual(yield* call(server.mcpUrl), 200) // refreshed before expiry
      const atAs = server.requests.filter((r) => r.listener === "authorization")
      assert.includeMembers(atAs.map((r) => `${r.method} ${r.path}`), [
        "GET /.well-known/oauth-authorization-server",
        "POST /register",
        "GET /authorize",
        "POST /token"
      ])
      assert.isTrue(atAs.some((r) => r.form["grant_type"] === "refresh_token"))
      for (const r of atAs) {
        assert.notMatch(String(r.headers["authorization"] ?? ""), /^bearer/i, `${r.method} ${r.path} carried a bearer`)
      }
      const atMcp = server.requests.filter((r) => r.listener === "resource" && r.path === "/mcp")
      assert.isTrue(atMcp.some((r) => String(r.headers["authorization"]).startsWith("Bearer ")), "the MCP server did")
    }).pipe(Effect.scoped, Effect.provide(authLayer())))

  it.effect("McpAuth.sent: the tokens put on a server's requests, for scrubbing, the latest eight only", () =>
    Effect.gen(function*() {
      const store = yield* TokenStore.TokenStore
      const auth = yield* McpAuth.McpAuth
      const server = "https://mcp.example/mcp"
      for (let i = 1; i <= 10; i++) {
        yield* store.setTokens(server, {
          issuer: "https://as.example",
          accessToken: Redacted.make(`at-${i}`),
          refreshToken: undefined,
          expiresAt: undefined,
          obtainedAt: 0,
          scope: undefined
        })
        yield* auth.headers(server)
        yield* auth.headers(server)
      }
      const sent = [...(auth.sent?.(server) ?? [])]
      assert.strictEqual(sent.length, 16)
      assert.includeMembers(sent, ["at-10", "Bearer at-10", "at-3", "Bearer at-3"])
      assert.notInclude(sent, "at-2")
      assert.deepStrictEqual(auth.sent?.("https://other.example/mcp"), [])
    }).pipe(
      Effect.provide(authLayerWith(NodeHttpClient.layerUndici, {}, unattended))
    ))

  it.effect("a registration response with a client secret a header cannot carry, or an oversize client id, is refused typed", () =>
    Effect.gen(function*() {
      const cases = [
        [{ client_id: "c1", client_secret: "s\r\nx-injected: 1" }, "client_secret is not 1 to 16384 printable ASCII"],
        [{ client_id: "c".repeat(4097) }, "client_id is not 1 to 4096 printable ASCII"]
      ] as const
      for (const [answer, reason] of cases) {
        const registrar = yield* hostileServiceAnswering(201, JSON.stringify(answer))
        const server = yield* authServer({
          asMetadata: (doc) => ({ ...doc, registration_endpoint: `${registrar.origin}/register` })
        })
        const error = yield* Effect.flip(call(server.mcpUrl))
        assert.include(error.message, `the registration response's ${reason}`)
        assert.notInclude(paths(server), "GET /authorize")
      }
    }).pipe(Effect.scoped, Effect.provide(authLayer())))
})
