/**
 * The gateway's wiring for replicas (issue 30), two replicas in process, each its own fleet (a fake server over
 * stdio, or one shared fake HTTP server), hosts speaking raw HTTP:
 *
 * - a 2025-11-25 session opened on one replica is served by the other when both hold the session key (sealed ids);
 *   without a key it is not (the control: in-process ids);
 * - an altered id, or one sealed under a key the replica does not hold, is an unknown session (404);
 * - `logging/setLevel` answers a new id that carries the level, for the same session;
 * - a request's stream resumed (`Last-Event-ID`) on a replica that does not hold it is answered at once: an
 *   `isError` result for a tool call, naming the request it answers;
 * - the shared state's status is in `/readyz` and `fleet_status`; a degraded replica stays ready;
 * - a remote server that tells only one replica its tools changed: every replica's hosts get one `list_changed`,
 *   through the change bus (without it, the other replica never hears of it: the control).
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ChangeBus, SessionSeal, SharedState } from "@mcp-fleet/gateway"
import { FakeHttpServer, FakeServer } from "@mcp-fleet/testing"
import { Context, Effect, Layer, PubSub, Stream } from "effect"
import { Relay } from "../src/internal/relay.ts"
import * as Front from "./support/Front.ts"

const stdioFake = () => {
  const { args, command, env } = FakeServer.command()
  return { fake: { command, args, env } }
}

const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  id,
  method: "tools/call",
  params: { name, arguments: args }
})

const textOf = (result: Record<string, unknown>) => JSON.stringify(result["content"])

describe("gateway replicas", { timeout: 60_000 }, () => {
  it.live("a sealed 2025-11-25 session opened on one replica is served by another; in-process ids are not", () =>
    Effect.gen(function*() {
      const seal = yield* Front.sealWith([yield* Front.newKey])
      const a = yield* Front.replica(stdioFake(), Front.sealing(seal))
      const b = yield* Front.replica(stdioFake(), Front.sealing(seal))
      const sessionId = yield* Front.initialize(a.url)
      assert.isTrue(SessionSeal.isSealed(sessionId), "the id is sealed")
      const opened = yield* seal.open(sessionId)
      assert.deepStrictEqual(opened.state.clientInfo, { name: "raw-host", version: "1.0.0" })
      assert.strictEqual(opened.state.protocolVersion, "2025-11-25")

      // Replica b never saw initialize: it opens the id and serves the session.
      const echoed = yield* Front.post(b.url, call(1, "fake__echo", { via: "b" }), { sessionId })
      assert.strictEqual(echoed.status, 200)
      assert.include(textOf(Front.resultOf(echoed)), "via")
      assert.strictEqual(b.gateway.stats().sessions, 1, "b rebuilt the session")
      assert.include(
        Front.toolNames(yield* Front.post(a.url, { id: 2, method: "tools/list" }, { sessionId })),
        "fake__echo"
      )

      // The control: replicas without a key give in-process ids, which another replica does not know.
      const c = yield* Front.replica(stdioFake())
      const d = yield* Front.replica(stdioFake())
      const plain = yield* Front.initialize(c.url)
      assert.isFalse(SessionSeal.isSealed(plain))
      assert.strictEqual((yield* Front.post(d.url, call(3, "fake__echo"), { sessionId: plain })).status, 404)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("an altered id, or one sealed under a key the replica does not hold, is an unknown session (404)", () =>
    Effect.gen(function*() {
      const old = yield* Front.newKey
      const current = yield* Front.newKey
      const before = yield* Front.sealWith([old])
      const rotated = yield* Front.sealWith([current, old])
      const stranger = yield* Front.sealWith([yield* Front.newKey])
      const a = yield* Front.replica(stdioFake(), Front.sealing(before))
      const b = yield* Front.replica(stdioFake(), Front.sealing(rotated))
      const c = yield* Front.replica(stdioFake(), Front.sealing(stranger))
      const sessionId = yield* Front.initialize(a.url)
      // A replica whose file lists the old key as a previous one still opens it (rotation).
      assert.strictEqual((yield* Front.post(b.url, call(1, "fake__echo"), { sessionId })).status, 200)
      // One that does not hold it answers as for an unknown session.
      const unknown = yield* Front.post(c.url, call(2, "fake__echo"), { sessionId })
      assert.strictEqual(unknown.status, 404)
      assert.deepStrictEqual(unknown.messages[0]?.["error"], { code: -32001, message: "Session not found" })
      const last = sessionId.at(-2) === "A" ? "B" : "A"
      const altered = `${sessionId.slice(0, -2)}${last}${sessionId.slice(-1)}`
      assert.strictEqual((yield* Front.post(a.url, call(3, "fake__echo"), { sessionId: altered })).status, 404)
      assert.strictEqual((yield* Front.post(a.url, call(4, "fake__echo"), { sessionId: "garbage" })).status, 404)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("logging/setLevel answers a new id carrying the level, for the same session", () =>
    Effect.gen(function*() {
      const seal = yield* Front.sealWith([yield* Front.newKey])
      const a = yield* Front.replica(stdioFake(), Front.sealing(seal))
      const b = yield* Front.replica(stdioFake(), Front.sealing(seal))
      const sessionId = yield* Front.initialize(a.url)
      const set = yield* Front.post(b.url, { id: 1, method: "logging/setLevel", params: { level: "error" } }, {
        sessionId
      })
      assert.strictEqual(set.status, 200)
      const resealed = set.sessionId ?? assert.fail("no new Mcp-Session-Id")
      assert.notStrictEqual(resealed, sessionId)
      const [first, second] = [yield* seal.open(sessionId), yield* seal.open(resealed)]
      assert.strictEqual(second.state.logLevel, "error")
      assert.isUndefined(first.state.logLevel)
      assert.strictEqual(second.sid, first.sid, "the same session")
      assert.strictEqual(second.expiresAt, first.expiresAt)
      assert.strictEqual((yield* Front.post(a.url, call(2, "fake__echo"), { sessionId: resealed })).status, 200)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("a call's stream resumed on a replica that does not hold it is answered at once: isError, its id", () =>
    Effect.gen(function*() {
      const seal = yield* Front.sealWith([yield* Front.newKey])
      const a = yield* Front.replica(stdioFake(), Front.sealing(seal))
      const b = yield* Front.replica(stdioFake(), Front.sealing(seal))
      const sessionId = yield* Front.initialize(a.url)
      // A long call on a: its stream is primed at once, and the priming event's id is what a host resumes from.
      const stream = yield* Front.open(a.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": sessionId
        },
        body: JSON.stringify({ jsonrpc: "2.0", ...call(41, "fake__sleep", { ms: 30_000 }) })
      })
      const priming = yield* Stream.fromQueue(stream.events).pipe(Stream.runHead)
      const eventId = priming._tag === "Some" && priming.value.id !== undefined ? priming.value.id : assert.fail("")
      // a "died": the host resumes on b, which does not hold that stream.
      const resumed = yield* Front.getStream(b.url, sessionId, eventId)
      assert.strictEqual(resumed.status, 200)
      const message = JSON.parse((yield* resumed.nextEvent).data)
      assert.strictEqual(message.id, 41)
      assert.strictEqual(message.result.isError, true)
      assert.include(message.result.content[0].text, "replica serving this call went away")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("a host's answer to a request one replica asked reaches it through another (relayed); not without relay", () =>
    Effect.gen(function*() {
      const seal = yield* Front.sealWith([yield* Front.newKey])
      const hub = yield* PubSub.unbounded<unknown>()
      const relay = Relay.of({
        publish: (answer) => Effect.asVoid(PubSub.publish(hub, answer)),
        subscribe: Effect.map(PubSub.subscribe(hub), (subscription) => PubSub.take(subscription))
      })
      const shared = Context.make(SessionSeal.SessionSeal, seal).pipe(Context.add(Relay, relay))
      const a = yield* Front.replica(stdioFake(), shared)
      const b = yield* Front.replica(stdioFake(), shared)
      const sessionId = yield* Front.initialize(a.url, "raw-host", { elicitation: {} })
      // The upstream asks for input during a call on a: the gateway asks the host on that call's stream.
      const callStream = yield* Front.open(a.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": sessionId
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          ...call(41, "fake__server_request", {
            method: "elicitation/create",
            params: {
              message: "Your name?",
              requestedSchema: { type: "object", properties: { name: { type: "string" } } }
            }
          })
        })
      })
      const asked = yield* callStream.next("elicitation/create")
      // The host answers with a new POST, which the balancer sends to b.
      const answer = yield* Front.post(b.url, {
        id: asked["id"],
        result: { action: "accept", content: { name: "relayed through b" } }
      }, { sessionId })
      assert.strictEqual(answer.status, 202)
      const result = JSON.parse((yield* callStream.nextEvent).data)
      assert.strictEqual(result.id, 41)
      assert.include(JSON.stringify(result.result), "relayed through b")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("/readyz and fleet_status show the shared state; a replica whose Redis is down stays ready", () =>
    Effect.gen(function*() {
      const down: SharedState.Status = {
        _tag: "Disconnected",
        since: 0,
        failedAttempts: 3,
        reason: "connect ECONNREFUSED 127.0.0.1:6390",
        retryAt: 5_000
      }
      const state = SharedState.SharedState.of({ status: Effect.succeed(down), changes: Stream.succeed(down) })
      const a = yield* Front.replica(stdioFake(), Context.make(SharedState.SharedState, state))
      const ready = yield* Effect.promise(() => fetch(`${a.origin}/readyz`))
      assert.strictEqual(ready.status, 200)
      const text = yield* Effect.promise(() => ready.text())
      assert.include(text, "shared state: Redis unreachable (connect ECONNREFUSED 127.0.0.1:6390)")
      const sessionId = yield* Front.initialize(a.url)
      const status = Front.resultOf(yield* Front.post(a.url, call(1, "fleet_status"), { sessionId }))
      assert.include(textOf(status), "shared state: Redis unreachable")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("a remote server that tells one replica its tools changed: each replica's host gets one list_changed", () =>
    Effect.gen(function*() {
      // The upstream's tool set is the server's, and it tells only the session that changed it.
      const upstream = yield* FakeHttpServer.start(["shared-tools"])
      const servers = { remote: { url: upstream.url } }
      const bus = Context.get(yield* Layer.build(ChangeBus.layerInProcess()), ChangeBus.ChangeBus)
      const shared = Context.make(ChangeBus.ChangeBus, bus)
      const a = yield* Front.replica(servers, shared)
      const b = yield* Front.replica(servers, shared)
      const onA = yield* Front.initialize(a.url, "host-a")
      const onB = yield* Front.initialize(b.url, "host-b")
      const streamA = yield* Front.getStream(a.url, onA)
      const streamB = yield* Front.getStream(b.url, onB)
      const change = (generation: number) =>
        Effect.gen(function*() {
          const changed = yield* Front.post(a.url, call(generation, "remote__change_tools"), { sessionId: onA })
          assert.include(textOf(Front.resultOf(changed)), `generation ${generation}`)
          yield* streamA.next("notifications/tools/list_changed")
          yield* streamB.next("notifications/tools/list_changed")
          const listB = Effect.map(
            Front.post(b.url, { id: 10 + generation, method: "tools/list" }, { sessionId: onB }),
            Front.toolNames
          )
          // The list_changed just read may be an earlier one still queued (a replica that has just started tells its
          // hosts of its first listing): then b's list is older, and the change's own list_changed is still to come.
          let listed = yield* listB
          for (let more = 0; more < 2 && !listed.includes(`remote__generation_${generation}`); more++) {
            yield* streamB.next("notifications/tools/list_changed")
            listed = yield* listB
          }
          assert.include(listed, `remote__generation_${generation}`)
        })
      yield* change(1)
      yield* change(2)
      yield* change(3)
      // A marker after the changes, through each replica's upstream session onto its host's stream. Each stream has
      // carried one list_changed per change, and at most one more: a replica that has just started may tell its hosts
      // of its first listing (its 100 ms window can end after they connect). A change told twice (by the upstream's
      // own notification and by the bus) would be 6.
      for (const [replica, sessionId, stream] of [[a, onA, streamA], [b, onB, streamB]] as const) {
        while (stream.count("notifications/tools/list_changed") < 3) {
          yield* stream.next("notifications/tools/list_changed")
        }
        yield* Front.post(replica.url, call(20, "remote__notify", { count: 1 }), { sessionId })
        yield* stream.next("notifications/message")
        const told = stream.count("notifications/tools/list_changed")
        assert.isTrue(told === 3 || told === 4, `${told} list_changed for 3 changes`)
      }
    }).pipe(Effect.scoped, Effect.provide([NodeServices.layer, NodeHttpClient.layerUndici])))
})
