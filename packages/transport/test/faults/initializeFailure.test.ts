/**
 * Fault suite, in-memory peer: an `initialize` that fails (issue 11, items 1 and 3).
 *
 * - The outcome is one readiness value, recorded by the initialize fiber before `awaitReady` completes: no reader
 *   can see "failed" on `awaitReady` and "starting" (`ErrIndexBuilding`, `NotReady`) on a call.
 * - Any terminal initialize failure shuts the child down gracefully (stdin EOF first), and a `-32022` error with
 *   `data.supported` is `UnsupportedProtocolVersion` carrying the server's list.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Deferred, Effect, Fiber } from "effect"
import type { Message } from "../peers.ts"
import { awaitMethod, controlledPeer } from "../peers.ts"
import { failureOf, framesWith } from "./helpers.ts"

/** A client whose peer answers `initialize` with `answer(id)` instead of a valid result. */
const withInitializeAnswer = (answer: (id: unknown) => Message) =>
  Effect.gen(function*() {
    const { frames, layer, peer } = yield* controlledPeer({ initialize: "never" })
    const client = yield* McpClient.make({ command: "server", name: "bad-init" }).pipe(Effect.provide(layer))
    // Registered on readiness before anything else of the client's runs: it resumes first when initialize fails,
    // and then, with no yield in between, makes a call and a list.
    const observed = yield* client.awaitReady.pipe(
      Effect.exit,
      Effect.flatMap((ready) =>
        Effect.all([Effect.succeed(ready), Effect.exit(client.callTool("x")), Effect.exit(client.listTools())])
      ),
      Effect.forkChild({ startImmediately: true })
    )
    const p = yield* peer
    yield* awaitMethod(frames, "initialize", 1)
    yield* p.send(answer(framesWith(frames, "initialize")[0]!.id))
    return { client, peer: p, frames, observed: Fiber.join(observed) }
  })

const result = (fields: Record<string, unknown>) => (id: unknown): Message => ({
  jsonrpc: "2.0",
  id,
  result: { serverInfo: { name: "s", version: "1" }, ...fields }
})

const rpcError = (code: number, message: string, data?: unknown) => (id: unknown): Message => ({
  jsonrpc: "2.0",
  id,
  error: { code, message, ...(data === undefined ? {} : { data }) }
})

const failures: ReadonlyArray<readonly [string, (id: unknown) => Message, string]> = [
  ["an answer without capabilities", result({ protocolVersion: "2025-11-25" }), "ProtocolError"],
  [
    "protocolVersion 2099-01-01",
    result({ protocolVersion: "2099-01-01", capabilities: {} }),
    "UnsupportedProtocolVersion"
  ],
  ["a JSON-RPC error", rpcError(-32603, "internal error"), "RemoteError"],
  [
    "-32022 with data.supported",
    rpcError(-32022, "Unsupported protocol version", { supported: ["2026-07-28"], requested: "2025-11-25" }),
    "UnsupportedProtocolVersion"
  ]
]

describe("Fault: initialize fails (in-memory peer)", () => {
  for (const [what, answer, tag] of failures) {
    it.effect(`${what}: awaitReady, callTool and listTools fail with the same ${tag} at once`, () =>
      Effect.gen(function*() {
        const { client, observed } = yield* withInitializeAnswer(answer)
        const [readyExit, callExit, listExit] = yield* observed
        const ready = failureOf(readyExit)
        assert.strictEqual(ready._tag, tag)
        assert.strictEqual(failureOf(callExit), ready, "callTool fails with the initialize error itself")
        assert.strictEqual(failureOf(listExit), ready, "listTools fails with the initialize error itself")
        assert.isFalse(client.isReady())
      }))

    it.effect(`${what}: the child is shut down gracefully (stdin EOF), and calls still get ${tag}`, () =>
      Effect.gen(function*() {
        const { client, peer } = yield* withInitializeAnswer(answer)
        yield* Effect.exit(client.awaitReady)
        yield* Deferred.await(peer.stdinClosed)
        yield* client.awaitExit
        assert.isFalse(client.isAlive())
        assert.isFalse(yield* Deferred.isDone(peer.killed), "EOF was enough: no signal")
        assert.strictEqual(failureOf(yield* Effect.exit(client.callTool("x")))._tag, tag)
      }))
  }

  it.effect("-32022 with data.supported carries the server's list and what the client offered", () =>
    Effect.gen(function*() {
      const { client } = yield* withInitializeAnswer(
        rpcError(-32022, "Unsupported protocol version", { supported: ["2026-07-28", 7], requested: "2025-11-25" })
      )
      const error = failureOf(yield* Effect.exit(client.awaitReady))
      assert.strictEqual(error._tag, "UnsupportedProtocolVersion")
      if (error._tag !== "UnsupportedProtocolVersion") return
      assert.deepStrictEqual(error.serverSupported, ["2026-07-28"])
      assert.isUndefined(error.answered)
      assert.strictEqual(
        error.message,
        "MCP server \"bad-init\" does not support protocol version \"2025-11-25\" (it supports 2026-07-28; this client supports 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)."
      )
    }))

  it.effect("-32022 without a readable data.supported stays a RemoteError (and still shuts the child down)", () =>
    Effect.gen(function*() {
      const { client, peer } = yield* withInitializeAnswer(rpcError(-32022, "Unsupported protocol version"))
      assert.strictEqual(failureOf(yield* Effect.exit(client.awaitReady))._tag, "RemoteError")
      yield* Deferred.await(peer.stdinClosed)
    }))
})
