/**
 * The scale test (issue 30): three `mcp-fleet serve` replicas (the real binary, each a process group) behind a real
 * HAProxy (`docs/deploy/haproxy.cfg`: round robin, no stickiness), sharing one real redis-server, in front of real
 * upstreams: server-everything over HTTP, a fake stdio server per replica, and an OAuth-protected server whose
 * authorization server is the fake one. 64 hosts through HAProxy: 32 v2 SDK clients at 2026-07-28, 16 v1 SDK clients
 * and 16 mcp-fleet clients at 2025-11-25. Then, each phase driven by events (process output lines, answers, counts),
 * never by sleeps:
 *
 * 1. **Replicas die.** Every host calls in a loop; after every 150 calls one replica is killed (SIGKILL to its group),
 *    taken out by HAProxy (its log line), started again and taken back (its log line): each replica once. A failed
 *    call must have been in flight when a replica died, and fail with a type (never hang: every call ends); every
 *    other call succeeds; no 2025-11-25 session is lost (one `initialize` per legacy host, no 404).
 * 2. **A token revoked, then expired.** Exactly one `refresh_token` grant reaches the authorization server for each,
 *    whichever replicas the calls land on, and every call succeeds. Then each v1 host is asked for input during a
 *    call (elicitation): its answer, a new POST, may reach another replica, which relays it to the one that asked.
 * 3. **The config is edited** (a server added): each host gets one `tools/list_changed`.
 * 4. **Redis dies for a while.** Every replica says so (its own line); calls go on succeeding (sealed sessions,
 *    held tokens, own upstream connections); `/readyz` stays 200 and says Redis is unreachable; Redis comes back,
 *    every replica says so, a large result stored before is read from every replica.
 * 5. **The config is edited again** (the server removed): each host gets its second `tools/list_changed`, and no
 *    host got any other.
 *
 * The counts (calls, failures by type, refreshes) are logged at the end; RELIABILITY.md reports a run.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { AuthorizationPrompt, McpAuth, ProtectedResourceMetadata, TokenStore } from "@mcp-fleet/auth"
import { type AuthServer, startAuthServer } from "@mcp-fleet/fake-server/auth-server"
import { SharedState } from "@mcp-fleet/gateway"
import { Daemons, FakeServer } from "@mcp-fleet/testing"
import { Context, Deferred, Effect, Fiber, FileSystem, Latch, Layer, Redacted, Stream } from "effect"
import * as SecureRandom from "effect/crypto/SecureRandom"
import { HttpClient, HttpClientRequest } from "effect/http"
import { randomBytes } from "node:crypto"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as HttpPeers from "../src/HttpPeers.ts"
import * as Hosts from "./scale/Hosts.ts"
import * as Replica from "./scale/Replica.ts"

const haproxyConfig = Path.join(
  Path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "..",
  "docs",
  "deploy",
  "haproxy.cfg"
)

/** How many hosts of each kind. */
const V2_HOSTS = 32
const V1_HOSTS = 16
const FLEET_HOSTS = 16
/** Calls between two kills. */
const CALLS_PER_KILL = 150

/** One call as it happened. */
interface Logged {
  readonly host: string
  readonly tool: string
  readonly start: number
  readonly end: number
  readonly outcome: Hosts.Outcome
}

/** The authorization server's refresh grants so far. */
const refreshes = (server: AuthServer) => server.requests.filter((r) => r.form["grant_type"] === "refresh_token").length

/** One request to the protected endpoint as the transport makes it: on 401, McpAuth authorizes, then it is retried. */
const authorizeOnce = (auth: McpAuth.Service, url: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const post = (headers: Readonly<Record<string, Redacted.Redacted<string>>>) =>
      client.execute(
        HttpClientRequest.post(url).pipe(
          HttpClientRequest.setHeaders(
            Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Redacted.value(v)]))
          )
        )
      ).pipe(
        Effect.map((response) => ({ status: response.status, wwwAuthenticate: response.headers["www-authenticate"] })),
        Effect.scoped,
        Effect.orDie
      )
    const first = yield* post(yield* auth.headers(url))
    if (first.status === 401) yield* auth.onChallenge(url, first)
    const second = yield* post(yield* auth.headers(url))
    assert.strictEqual(second.status, 200, "the seeding authorization worked")
  })

/** The config file's text: everything over HTTP, the fake over stdio, the protected server, and maybe a second fake. */
const configText = (everything: string, secure: string, withExtra: boolean) => {
  const fake = FakeServer.command()
  const extra = FakeServer.command({ tools: 3 })
  return JSON.stringify({
    mcpServers: {
      everything: { url: everything },
      fake: { command: fake.command, args: fake.args, env: fake.env },
      secure: { url: secure },
      ...(withExtra ? { extra: { command: extra.command, args: extra.args, env: extra.env } } : {})
    }
  })
}

describe("the scale test", { timeout: 300_000 }, () => {
  it.live("three replicas behind HAProxy, one Redis, 64 hosts: kills, a refresh, config edits, Redis down", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "mcp-fleet-scale-" })
      const redis = yield* Daemons.redis({ persistence: true })
      const everything = yield* HttpPeers.start("everything-streamable")
      const authServer = yield* Effect.acquireRelease(
        Effect.promise(() => startAuthServer({ expiresIn: 3600 })),
        (server) => Effect.promise(() => server.close())
      )
      const resource = ProtectedResourceMetadata.canonicalResource(authServer.mcpUrl)

      // The test's own view of the shared state (as a fourth replica would have it): it authorizes the protected
      // server once, so every replica finds the tokens and the registered client in Redis.
      const seeder = yield* Layer.build(
        SharedState.layer({ redis: { url: Redacted.make(redis.url) }, tokens: TokenStore.layerMemory }).pipe(
          Layer.provide(SecureRandom.layerWebCrypto)
        )
      )
      yield* Context.get(seeder, SharedState.SharedState).changes.pipe(
        Stream.filter((s) => s._tag === "Connected"),
        Stream.runHead
      )
      const store = Context.get(seeder, TokenStore.TokenStore)
      const auth = Context.get(
        yield* Layer.build(
          McpAuth.layer({ clientName: "mcp-fleet", redirectUri: "http://127.0.0.1/callback" }).pipe(
            Layer.provide(
              Layer.mergeAll(AuthorizationPrompt.layerHeadless, Layer.succeed(TokenStore.TokenStore, store))
            )
          )
        ),
        McpAuth.McpAuth
      )
      yield* authorizeOnce(auth, authServer.mcpUrl)

      const config = Path.join(dir, "mcp.json")
      yield* fs.writeFileString(config, configText(everything.url, authServer.mcpUrl, false))
      const keyFile = Path.join(dir, "session-key")
      yield* fs.writeFileString(keyFile, `${randomBytes(32).toString("base64")}\n`)

      // Three replicas, each ready (its own line), then HAProxy in front of them.
      const replicas = yield* Effect.forEach(
        [1, 2, 3],
        (n) =>
          Effect.flatMap(
            Daemons.freePort,
            (port) => Replica.make({ name: `gateway-${n}`, port, config, redis: redis.url, keyFile })
          )
      )
      yield* Effect.forEach(replicas, (replica) =>
        Effect.gen(function*() {
          const ready = yield* replica.expect(/^mcp-fleet serve: ready/)
          yield* replica.start
          yield* ready
        }), { concurrency: "unbounded" })
      const proxy = yield* Daemons.haproxy({
        config: haproxyConfig,
        env: (port) => ({
          HAPROXY_BIND: `127.0.0.1:${port}`,
          GATEWAY_1: `127.0.0.1:${replicas[0]!.port}`,
          GATEWAY_2: `127.0.0.1:${replicas[1]!.port}`,
          GATEWAY_3: `127.0.0.1:${replicas[2]!.port}`,
          HAPROXY_CHECK_INTER: "250ms"
        })
      })
      const url = `${proxy.url}/mcp`

      // 64 hosts through HAProxy, each with its channel for list changes open.
      const hosts = yield* Effect.forEach(
        [
          ...Array.from({ length: V2_HOSTS }, (_, i) => Hosts.v2(url, `v2-host-${i}`)),
          ...Array.from({ length: V1_HOSTS }, (_, i) => Hosts.v1(url, `v1-host-${i}`)),
          ...Array.from({ length: FLEET_HOSTS }, (_, i) => Hosts.fleet(url, `fleet-host-${i}`))
        ],
        (host) => host,
        { concurrency: 8 }
      )
      const channelsOpen = Effect.forEach(hosts, (host) => Latch.await(host.channel), { discard: true })
      yield* channelsOpen

      // -------------------------------------------------------------------------------------------------------
      // 1. Replicas die while every host calls.
      const log: Array<Logged> = []
      let completed = 0
      const waiters: Array<{ readonly target: number; readonly done: Deferred.Deferred<void> }> = []
      const record = (entry: Logged) => {
        log.push(entry)
        completed++
        for (const waiter of waiters) if (completed >= waiter.target) Deferred.doneUnsafe(waiter.done, Effect.void)
      }
      const moreCalls = (n: number) =>
        Effect.gen(function*() {
          const done = yield* Deferred.make<void>()
          waiters.push({ target: completed + n, done })
          yield* Deferred.await(done)
        })
      let calling = true
      const tools = [
        ["everything__echo", (i: number) => ({ message: `call ${i}` })],
        ["fake__echo", (i: number) => ({ call: i })],
        ["fake__sleep", () => ({ ms: 100 })]
      ] as const
      const loops = yield* Effect.forEach(hosts, (host) =>
        Effect.gen(function*() {
          let i = 0
          while (calling) {
            const [tool, args] = tools[i % tools.length]!
            const start = performance.now()
            const outcome = yield* host.call(tool, args(i))
            record({ host: host.name, tool, start, end: performance.now(), outcome })
            i++
          }
        }).pipe(Effect.forkScoped))
      /** Each kill: when SIGKILL was sent, when the exit was seen, when haproxy took the replica back. */
      const kills: Array<{ readonly replica: string; readonly at: number; died: number; back: number }> = []
      for (const [index, replica] of replicas.entries()) {
        yield* moreCalls(CALLS_PER_KILL)
        const down = yield* proxy.expect(new RegExp(`Server gateways/gateway-${index + 1} is DOWN`))
        const kill = { replica: replica.name, at: performance.now(), died: 0, back: 0 }
        kills.push(kill)
        yield* replica.kill
        kill.died = performance.now()
        yield* down
        const up = yield* proxy.expect(new RegExp(`Server gateways/gateway-${index + 1} is UP`))
        yield* replica.start
        yield* up
        kill.back = performance.now()
      }
      yield* moreCalls(CALLS_PER_KILL)
      calling = false
      yield* Fiber.joinAll(loops)

      const failed = log.filter((entry) => entry.outcome._tag === "Failed")
      // In flight when a replica died: sent before its exit was seen, not answered before SIGKILL was sent.
      const inFlightAtAKill = (entry: Logged) => kills.some((kill) => entry.start < kill.died && entry.end > kill.at)
      const unexplained = failed.filter((entry) => !inFlightAtAKill(entry))
      /** When a call ran, against the kills and their ends (for a failure's message). */
      const when = (entry: Logged) =>
        `ran ${Math.round(entry.start)}–${Math.round(entry.end)} ms; kills ${
          kills.map((k) => `${k.replica} ${Math.round(k.at)}/${Math.round(k.died)}–${Math.round(k.back)}`).join(", ")
        }`
      // What a call in flight on a dead replica may fail with: a connection error of its client, or the answer
      // another replica gives for a 2025-11-25 stream it resumes, or HAProxy's 502 for a request whose replica died
      // before it answered (its headers not yet sent). Not a timeout: no call waits out its deadline.
      const connectionError =
        /fetch failed|ConnectionFailed|StreamEnded|the replica serving the call went away|CONNECTION_CLOSED|502 Bad Gateway/
      const badTypes = failed.filter((e) =>
        e.outcome._tag === "Failed" && !connectionError.test(`${e.outcome.type} ${e.outcome.detail}`)
      )
      assert.deepStrictEqual(badTypes.map((e) => `${e.host} ${e.tool} ${when(e)}: ${JSON.stringify(e.outcome)}`), [])
      const longest = Math.max(...log.map((e) => e.end - e.start))
      assert.isBelow(longest, Hosts.DEADLINE_MS / 2, "no call came near its deadline")
      assert.deepStrictEqual(
        unexplained.map((e) =>
          `${e.host} ${e.tool} ${when(e)}: ${
            e.outcome._tag === "Failed" ? `${e.outcome.type}: ${e.outcome.detail}` : ""
          }`
        ),
        [],
        "every call not in flight when a replica died succeeded"
      )
      for (const host of hosts.filter((h) => h.kind !== "v2")) {
        assert.strictEqual(host.stats.initializes, 1, `${host.name} kept its session (one initialize)`)
        assert.strictEqual(host.stats.notFound, 0, `${host.name} never met "Session not found"`)
      }
      yield* channelsOpen

      // -------------------------------------------------------------------------------------------------------
      // 2. The protected server's token is revoked, then expires: one refresh each, whichever replicas are asked.
      const spread = hosts.filter((_, i) => i % 5 === 0) // 13 hosts of every kind, round robin over the replicas
      const callSecure = Effect.forEach(spread, (host) => host.call("secure__whoami", {}), { concurrency: "unbounded" })
      const beforeRevoke = refreshes(authServer)
      const held = yield* store.getTokens(resource)
      assert.isTrue(held._tag === "Some", "the tokens are in Redis")
      if (held._tag === "Some") authServer.revoke(Redacted.value(held.value.accessToken))
      const afterRevoke = yield* callSecure
      assert.deepStrictEqual(afterRevoke.filter((o) => o._tag === "Failed"), [], "every call after the revocation")
      assert.strictEqual(refreshes(authServer) - beforeRevoke, 1, "one refresh for the revocation")
      const refreshed = yield* store.getTokens(resource)
      if (refreshed._tag === "None") return assert.fail("the refreshed tokens are in Redis")
      yield* store.setTokens(resource, { ...refreshed.value, expiresAt: Date.now() - 1_000 })
      const afterExpiry = yield* callSecure
      assert.deepStrictEqual(afterExpiry.filter((o) => o._tag === "Failed"), [], "every call after the expiry")
      assert.strictEqual(refreshes(authServer) - beforeRevoke, 2, "one refresh for the expiry")

      // Each v1 host is asked for input during a call (server-everything's elicitation, one call at a time: an
      // upstream's request goes to its oldest call): its answer is a new POST, which may reach another replica than
      // the one that asked; that one relays it (Redis).
      for (const host of hosts.filter((h) => h.kind === "v1")) {
        const elicited = yield* host.call("everything__trigger-elicitation-request", {})
        assert.strictEqual(elicited._tag, "Ok", `${host.name}'s elicitation: ${JSON.stringify(elicited)}`)
        assert.strictEqual(host.stats.elicited, 1, `${host.name} was asked once`)
      }

      // -------------------------------------------------------------------------------------------------------
      // 3. A server is added to the config: each host hears of it.
      const listChangedSince = (host: Hosts.Host, from: number) =>
        host.stats.listChanged.filter((t) => t >= from).length
      const everyHostHeard = (from: number) =>
        Effect.forEach(hosts, (host) =>
          host.heardSince(from).pipe(
            Effect.timeoutOrElse({
              duration: "30 seconds",
              orElse: () => Effect.die(new Error(`${host.name} heard no list_changed within 30 s`))
            })
          ), { concurrency: "unbounded", discard: true })
      const firstEdit = performance.now()
      yield* fs.writeFileString(config, configText(everything.url, authServer.mcpUrl, true))
      yield* everyHostHeard(firstEdit)

      // -------------------------------------------------------------------------------------------------------
      // 4. Redis dies for a while.
      const big = "x".repeat(100_000)
      const spilled = yield* hosts[V2_HOSTS]!.call("fake__echo", { big })
      assert.strictEqual(spilled._tag, "Ok")
      const link = /fleet:\/\/results\/[A-Za-z0-9_-]+/.exec(spilled._tag === "Ok" ? spilled.text : "")?.[0]
      const redisDown = yield* Effect.forEach(replicas, (r) => r.expect(/shared state: Redis unreachable/))
      yield* redis.kill
      yield* Effect.all(redisDown, { concurrency: "unbounded" })
      const duringOutage = yield* Effect.forEach(hosts, (host) => host.call("fake__echo", { outage: true }), {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(duringOutage.filter((o) => o._tag === "Failed"), [], "every call while Redis is down")
      assert.deepStrictEqual((yield* callSecure).filter((o) => o._tag === "Failed"), [], "held tokens serve")
      for (const replica of replicas) {
        const ready = yield* Effect.promise(() => fetch(`${replica.origin}/readyz`))
        assert.strictEqual(ready.status, 200, `${replica.name} stays ready`)
        assert.include(yield* Effect.promise(() => ready.text()), "shared state: Redis unreachable")
      }
      const redisUp = yield* Effect.forEach(replicas, (r) => r.expect(/shared state: Redis connected/))
      yield* redis.start
      yield* Effect.all(redisUp, { concurrency: "unbounded" })
      const afterOutage = yield* Effect.forEach(hosts, (host) => host.call("fake__echo", { back: true }), {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(afterOutage.filter((o) => o._tag === "Failed"), [], "every call once Redis is back")
      // The large result stored before the outage is read from every replica (Redis kept it: AOF).
      assert.isDefined(link, "the large result was spilled to fleet://results/…")
      const reader = yield* Effect.promise(() =>
        fetch(replicas[0]!.origin + "/mcp", {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "reader", version: "1" } }
          })
        })
      )
      const sessionId = reader.headers.get("mcp-session-id") ?? ""
      for (const replica of replicas) {
        const read = yield* Effect.promise(() =>
          fetch(replica.origin + "/mcp", {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json", "mcp-session-id": sessionId },
            body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: link } })
          }).then((response) => response.text())
        )
        assert.include(read, "xxxxxxxxxx", `${replica.name} reads the large result`)
      }

      // -------------------------------------------------------------------------------------------------------
      // 5. The server is removed again: each host hears once more, and heard nothing else.
      const secondEdit = performance.now()
      yield* fs.writeFileString(config, configText(everything.url, authServer.mcpUrl, false))
      yield* everyHostHeard(secondEdit)
      for (const host of hosts) {
        const first = host.stats.listChanged.filter((t) => t >= firstEdit && t < secondEdit).length
        const second = listChangedSince(host, secondEdit)
        assert.deepStrictEqual([first, second], [1, 1], `${host.name}: one list_changed per edit`)
      }

      // The counts, for RELIABILITY.md.
      const byType = new Map<string, number>()
      for (const entry of failed) {
        const type = entry.outcome._tag === "Failed" ? entry.outcome.type : ""
        const key = `${entry.host.replace(/-\d+$/, "")}: ${type}`
        byType.set(key, (byType.get(key) ?? 0) + 1)
      }
      yield* Effect.log("scale test counts", {
        callsWhileKilling: log.length,
        failedWhileKilling: failed.length,
        failuresByType: Object.fromEntries(byType),
        kills: kills.length,
        longestCallMs: Math.round(longest),
        slowestFailureMs: Math.round(Math.max(0, ...failed.map((e) => e.end - e.start))),
        refreshGrants: refreshes(authServer) - beforeRevoke,
        callsAfter: afterRevoke.length + afterExpiry.length + duringOutage.length + afterOutage.length + spread.length +
          V1_HOSTS,
        elicitationsRelayedOrNot: hosts.reduce((n, h) => n + h.stats.elicited, 0)
      })
    }).pipe(Effect.scoped, Effect.provide([NodeServices.layer, NodeHttpClient.layerUndici])))
})
