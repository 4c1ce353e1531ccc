/**
 * The fake server's 2026-07-28 fault switches end to end over stdio (a real process, `protocol: "auto"`): each is a
 * typed error of that call, the connection lives (the next call works), and nothing hangs — a wrong `resultType`,
 * an MRTR loop that never ends (`InputRoundsExceeded`), a tampered `requestState` (the server's -32602; the
 * client's own byte-for-byte echo of a non-ASCII state completes), a listen that is never acknowledged
 * (`ListenFailed` no-ack), and -32022 with an empty `supported` list (`UnsupportedProtocolVersion`, no fallback to
 * `initialize`, the process ended).
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import type { FakeServer as Fake } from "@mcp-fleet/testing"
import { FakeServer } from "@mcp-fleet/testing"
import type { Elicitation } from "@mcp-fleet/transport"
import { McpClient, Subscriptions } from "@mcp-fleet/transport"
import { Effect } from "effect"
import { failureOf } from "../faults/helpers.ts"

const handlers = {
  elicitation: {
    form: () => Effect.succeed({ action: "accept", content: { confirm: true } } satisfies Elicitation.Answer)
  }
}

const modern = (modes: ReadonlyArray<Fake.Mode>) => {
  const { args, command, env } = FakeServer.command({ modes: ["modern", ...modes] })
  return McpClient.make({ command, args, env, name: "fake-modern", handlers })
}

/** The connection lives: a plain call still works. */
const lives = (client: McpClient.McpClient) =>
  Effect.gen(function*() {
    const echoed = yield* client.callTool("echo", { alive: true })
    assert.deepStrictEqual(echoed.structuredContent, { alive: true })
    assert.isTrue(client.isAlive())
  })

describe("modern faults over stdio (fake server)", { timeout: 30_000 }, () => {
  it.live("a wrong resultType is a ProtocolError of that call; the connection lives", () =>
    Effect.gen(function*() {
      const client = yield* modern(["wrong-result-type"])
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.callTool("echo", { a: 1 })))
      assert.strictEqual(error._tag, "ProtocolError")
      assert.include(error.message, "bogus")
      // tools/list is answered "complete" in this mode: the session still lists.
      const listed = yield* client.listTools()
      assert.include(listed.tools.map((t) => t.name), "echo")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("an MRTR loop that never ends is InputRoundsExceeded; the connection lives", () =>
    Effect.gen(function*() {
      const client = yield* modern(["mrtr-endless"])
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.callTool("mrtr", {})))
      assert.strictEqual(error._tag, "InputRoundsExceeded")
      if (error._tag === "InputRoundsExceeded") assert.strictEqual(error.rounds, 8)
      // prompts/get and resources/read are bounded the same way.
      assert.strictEqual(failureOf(yield* Effect.exit(client.getPrompt("mrtr")))._tag, "InputRoundsExceeded")
      assert.strictEqual(failureOf(yield* Effect.exit(client.readResource("fake://mrtr")))._tag, "InputRoundsExceeded")
      yield* lives(client)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("requestState: the client's echo completes; a tampered one is the server's typed refusal", () =>
    Effect.gen(function*() {
      const client = yield* modern([])
      yield* client.awaitReady
      // The fake issues a non-ASCII state ("fake-state-N:é 1") and refuses any that differs by a byte.
      const done = yield* client.callTool("mrtr", {})
      assert.deepStrictEqual(done.structuredContent, {
        inputResponses: { elicitation: { action: "accept", content: { confirm: true } } },
        rounds: 2
      })
      const tampered = yield* Effect.exit(
        client.request("tools/call", {
          name: "mrtr",
          arguments: {},
          inputResponses: { elicitation: { action: "accept", content: { confirm: true } } },
          requestState: "fake-state-1:e 1"
        })
      )
      const error = failureOf(tampered)
      assert.strictEqual(error._tag, "RemoteError")
      if (error._tag === "RemoteError") assert.strictEqual(error.code, -32602)
      yield* lives(client)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("a listen that is never acknowledged is ListenFailed no-ack, cancelled; the connection lives", () =>
    Effect.gen(function*() {
      const client = yield* modern(["listen-no-ack"])
      yield* client.awaitReady
      const filter = { ...Subscriptions.allLists, resourceSubscriptions: ["fake://readme"] }
      const opened = yield* Effect.exit(Effect.scoped(client.listen(filter, { timeout: "200 millis" })))
      const error = failureOf(opened)
      assert.strictEqual(error._tag, "ListenFailed")
      if (error._tag === "ListenFailed") assert.strictEqual(error.reason, "no-ack")
      // Cancelled on the server too (notifications/cancelled): the unacknowledged stream no longer gets updates.
      const touched = yield* client.callTool("touch", { uri: "fake://readme" })
      assert.deepStrictEqual(touched.structuredContent, { sent: 0 })
      yield* lives(client)
      assert.strictEqual(client.stats().pending, 0)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("-32022 with an empty supported list is UnsupportedProtocolVersion, with no fallback; the process ends", () =>
    Effect.gen(function*() {
      const client = yield* modern(["unsupported-empty"])
      const error = failureOf(yield* Effect.exit(client.awaitReady))
      assert.strictEqual(error._tag, "UnsupportedProtocolVersion")
      if (error._tag === "UnsupportedProtocolVersion") assert.deepStrictEqual(error.serverSupported, [])
      // The session ended (a failed handshake is terminal) and its process is reaped.
      yield* client.awaitTerminated
      assert.isFalse(client.isAlive())
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
