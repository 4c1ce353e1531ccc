/**
 * RedisTokenStore against a real redis-server, three replicas each with its own connection and its own McpAuth, in
 * front of the fake authorization server: authorized once is authorized on every replica; a token that expires or
 * is revoked is refreshed by one token request, not one per replica; reads cost no round trip once cached and see
 * another replica's write; entries decode one by one; a lock whose holder died is taken once its time is up.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { AuthorizationPrompt, McpAuth, TokenStore } from "@mcp-fleet/auth"
import { type AuthServer, startAuthServer } from "@mcp-fleet/fake-server/auth-server"
import { Daemons } from "@mcp-fleet/testing"
import { Context, Deferred, Effect, Fiber, Layer, Option, PubSub, Redacted } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { TestClock } from "effect/testing"
import * as Replicas from "./support/Replicas.ts"

const REDIRECT_URI = "http://127.0.0.1:8976/callback"
const SERVER = "https://mcp.example/mcp"

const authServer = (options: Parameters<typeof startAuthServer>[0] = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => startAuthServer(options)),
    (server) => Effect.promise(() => server.close())
  )

/** McpAuth on one replica (its token store is the replica's), built in the test's scope. */
const authOn = (replica: Replicas.Replica) =>
  Layer.build(
    McpAuth.layer({ clientName: "mcp-fleet tests", redirectUri: REDIRECT_URI }).pipe(
      Layer.provide(
        Layer.mergeAll(AuthorizationPrompt.layerHeadless, Layer.succeed(TokenStore.TokenStore, replica.tokens)).pipe(
          Layer.provideMerge(NodeHttpClient.layerUndici)
        )
      )
    )
  ).pipe(Effect.map((context) => Context.get(context, McpAuth.McpAuth)))

/** One request to the protected endpoint as the HTTP transport makes it: on 401/403, ask McpAuth and retry. */
const call = (auth: McpAuth.Service, url: string) =>
  Effect.gen(function*() {
    const post = (headers: Readonly<Record<string, Redacted.Redacted<string>>>) =>
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        let request = HttpClientRequest.post(url)
        for (const [name, value] of Object.entries(headers)) {
          request = HttpClientRequest.setHeader(request, name, Redacted.value(value))
        }
        const response = yield* client.execute(request)
        return { status: response.status, wwwAuthenticate: response.headers["www-authenticate"] }
      }).pipe(Effect.scoped, Effect.orDie)
    let reply = yield* post(yield* auth.headers(url))
    for (let retry = 0; retry < 2 && (reply.status === 401 || reply.status === 403); retry++) {
      yield* auth.onChallenge(url, reply)
      reply = yield* post(yield* auth.headers(url))
    }
    return reply.status
  }).pipe(Effect.provide(NodeHttpClient.layerUndici))

const grants = (server: AuthServer, grant: string) => server.requests.filter((r) => r.form["grant_type"] === grant)
const authorizations = (server: AuthServer) => server.requests.filter((r) => r.path.endsWith("/authorize"))
const bearer = (headers: Readonly<Record<string, Redacted.Redacted<string>>>) =>
  Redacted.value(headers["authorization"] ?? Redacted.make("none"))

/** Redis's count of commands processed so far (the INFO command itself counts one). */
const commandsProcessed = (replica: Replicas.Replica) =>
  Effect.map(
    replica.connection.use("info", (redis) => redis.send<string>("INFO", "stats")),
    (info) => Number(/total_commands_processed:(\d+)/.exec(info)?.[1])
  ).pipe(Effect.orDie)

const three = (url: string) => Effect.all([Replicas.replica(url), Replicas.replica(url), Replicas.replica(url)])

describe("RedisTokenStore", () => {
  it.effect("authorized on one replica, authorized on all; expiry and revocation each cost one refresh in all", () =>
    Effect.gen(function*() {
      const redis = yield* Daemons.redis()
      const server = yield* authServer({ expiresIn: 3600 })
      const replicas = yield* three(redis.url)
      const auths = yield* Effect.forEach(replicas, authOn)

      assert.strictEqual(yield* call(auths[0]!, server.mcpUrl), 200)
      assert.strictEqual(authorizations(server).length, 1)
      // The other replicas use the tokens replica 1 got: no authorization, no token request of their own.
      for (const auth of auths.slice(1)) assert.strictEqual(yield* call(auth, server.mcpUrl), 200)
      assert.strictEqual(authorizations(server).length, 1)
      assert.strictEqual(grants(server, "authorization_code").length, 1)
      assert.strictEqual(grants(server, "refresh_token").length, 0)

      // Within a minute of expiry every replica finds the token due, at once: one refresh in all.
      yield* TestClock.adjust("3541 seconds")
      const after = yield* Effect.all(auths.map((auth) => auth.headers(server.mcpUrl)), { concurrency: "unbounded" })
      assert.strictEqual(grants(server, "refresh_token").length, 1)
      assert.strictEqual(new Set(after.map(bearer)).size, 1, "every replica sends the refreshed token")

      // The token is revoked: each replica gets a 401 at once; one refreshes, the others retry with its token.
      server.revoke(bearer(after[0]!).slice("Bearer ".length))
      const statuses = yield* Effect.all(auths.map((auth) => call(auth, server.mcpUrl)), { concurrency: "unbounded" })
      assert.deepStrictEqual(statuses, [200, 200, 200])
      assert.strictEqual(grants(server, "refresh_token").length, 2)
      assert.strictEqual(authorizations(server).length, 1)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("a cached read costs no round trip, and another replica's write is seen once it is announced", () =>
    Effect.gen(function*() {
      const redis = yield* Daemons.redis()
      const [one, two] = yield* Effect.all([Replicas.replica(redis.url), Replicas.replica(redis.url)])
      const tokens = (access: string): TokenStore.Tokens => ({
        issuer: "https://as.example",
        accessToken: Redacted.make(access),
        refreshToken: Redacted.make(`refresh-${access}`),
        expiresAt: 3_600_000,
        obtainedAt: 0,
        scope: "read"
      })
      const events = yield* two.connection.events
      const announced = Effect.gen(function*() {
        while (true) {
          const event = yield* PubSub.take(events)
          if (event._tag === "Message" && event.kind === "tokens") return
        }
      })
      yield* one.tokens.setTokens("https://mcp.example/mcp", tokens("A"))
      yield* announced
      const first = yield* two.tokens.getTokens("https://mcp.example/mcp")
      assert.strictEqual(Option.map(first, (t) => Redacted.value(t.accessToken)).pipe(Option.getOrUndefined), "A")

      const before = yield* commandsProcessed(two)
      for (let i = 0; i < 100; i++) yield* two.tokens.getTokens("https://mcp.example/mcp")
      const after = yield* commandsProcessed(two)
      assert.strictEqual(after - before, 1, "only the second INFO reached Redis")

      // Replica 1 writes: replica 2 hears it (latched on its connection's event) and reads the new tokens.
      yield* one.tokens.setTokens("https://mcp.example/mcp", tokens("B"))
      yield* announced
      const second = yield* two.tokens.getTokens("https://mcp.example/mcp")
      assert.strictEqual(Option.map(second, (t) => Redacted.value(t.accessToken)).pipe(Option.getOrUndefined), "B")
      assert.deepStrictEqual(
        Option.map(second, (t) => ({ ...t, accessToken: "", refreshToken: "" })),
        Option.some({ ...tokens("B"), accessToken: "", refreshToken: "" })
      )
      // Removal is shared too.
      yield* one.tokens.removeTokens("https://mcp.example/mcp")
      yield* announced
      assert.isTrue(Option.isNone(yield* two.tokens.getTokens("https://mcp.example/mcp")))
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("entries decode one by one: an undecodable one is absent, the others are read", () =>
    Effect.gen(function*() {
      const redis = yield* Daemons.redis()
      const replica = yield* Replicas.replica(redis.url)
      const good: TokenStore.Tokens = {
        issuer: "https://as.example",
        accessToken: Redacted.make("good"),
        refreshToken: undefined,
        expiresAt: undefined,
        obtainedAt: 1,
        scope: undefined
      }
      yield* replica.tokens.setTokens("https://good.example/mcp", good)
      yield* replica.connection.use(
        "corrupt",
        (r) => r.send("SET", "mcp-fleet:tokens:https://bad.example/mcp", "{\"issuer\":1}")
      ).pipe(Effect.orDie)
      yield* replica.connection.use("corrupt", (r) => r.send("SET", "mcp-fleet:clients:https://as.example", "not json"))
        .pipe(Effect.orDie)
      const fresh = yield* Replicas.replica(redis.url)
      assert.isTrue(Option.isNone(yield* fresh.tokens.getTokens("https://bad.example/mcp")))
      assert.isTrue(Option.isNone(yield* fresh.tokens.getClient("https://as.example")))
      const read = yield* fresh.tokens.getTokens("https://good.example/mcp")
      assert.strictEqual(Option.map(read, (t) => Redacted.value(t.accessToken)).pipe(Option.getOrUndefined), "good")
      // The next write replaces the undecodable entry.
      yield* fresh.tokens.setTokens("https://bad.example/mcp", good)
      assert.isTrue(Option.isSome(yield* replica.tokens.getTokens("https://bad.example/mcp")))
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("no field is lost between replicas: a DPoP-bound token keeps its type and its proof key", () =>
    Effect.gen(function*() {
      const redis = yield* Daemons.redis()
      const [one, two] = yield* Effect.all([Replicas.replica(redis.url), Replicas.replica(redis.url)])
      const dpop = {
        issuer: "https://as.example",
        accessToken: Redacted.make("bound"),
        refreshToken: undefined,
        expiresAt: undefined,
        obtainedAt: 5,
        scope: undefined,
        tokenType: "DPoP" as const,
        dpopKey: Redacted.make("{\"kty\":\"EC\",\"d\":\"secret\"}")
      }
      yield* one.tokens.setTokens("https://mcp.example/mcp", dpop)
      const read = Option.getOrUndefined(yield* two.tokens.getTokens("https://mcp.example/mcp"))
      if (read === undefined) return assert.fail("not shared")
      assert.strictEqual("tokenType" in read ? read.tokenType : undefined, "DPoP")
      const key = "dpopKey" in read && Redacted.isRedacted(read.dpopKey) ? Redacted.value(read.dpopKey) : undefined
      assert.strictEqual(key, "{\"kty\":\"EC\",\"d\":\"secret\"}")
      assert.strictEqual(String("dpopKey" in read ? read.dpopKey : ""), "<redacted>")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("two McpAuth over one replica's store: the second waits for the first's release, not for the lock's TTL", () =>
    Effect.gen(function*() {
      const redis = yield* Daemons.redis()
      const replica = yield* Replicas.replica(redis.url)
      const exclusive = replica.tokens.exclusive
      if (exclusive === undefined) return assert.fail("the Redis store has no exclusive")
      const holding = yield* Deferred.make<void>()
      const letGo = yield* Deferred.make<void>()
      const order: Array<string> = []
      const first = yield* Effect.forkChild(
        exclusive(
          SERVER,
          Effect.gen(function*() {
            order.push("first")
            yield* Deferred.succeed(holding, undefined)
            yield* Deferred.await(letGo)
          })
        )
      )
      yield* Deferred.await(holding)
      // Started at once, the second sends its SET NX now, before the first's release on the same connection: it
      // finds the lock taken. TestClock never moves here, so only the first's release can wake it.
      const second = yield* Effect.forkChild(exclusive(SERVER, Effect.sync(() => order.push("second"))), {
        startImmediately: true
      })
      yield* Deferred.succeed(letGo, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      assert.deepStrictEqual(order, ["first", "second"])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("a lock whose holder died (no release ever comes) is taken once Redis lets it expire", () =>
    Effect.gen(function*() {
      const redis = yield* Daemons.redis()
      const replica = yield* Replicas.replica(redis.url)
      const exclusive = replica.tokens.exclusive
      if (exclusive === undefined) return assert.fail("the Redis store has no exclusive")
      const lock = "mcp-fleet:lock:https://mcp.example/mcp"
      // Another replica took the lock for 300 ms, then died: no release message will come. Redis's own clock ends
      // the lock (the TTL is the bound); the waiter reads the time left (PTTL) and tries again then.
      yield* replica.connection.use("hold", (r) => r.send("SET", lock, "dead-holder", "PX", "300")).pipe(Effect.orDie)
      let ran = 0
      yield* exclusive("https://mcp.example/mcp", Effect.sync(() => ++ran))
      assert.strictEqual(ran, 1)
      // The waiter's own lock was released, by the waiter (compare-and-delete).
      assert.isNull(yield* replica.connection.use("get", (r) => r.send<string | null>("GET", lock)).pipe(Effect.orDie))
    }).pipe(Effect.provide(NodeServices.layer)))
})
