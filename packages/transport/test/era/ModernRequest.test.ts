import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option } from "effect"
import { Elicitation } from "../../src/index.ts"
import { EraCache } from "../../src/session/EraCache.ts"
import { error, modern, result, session } from "./memoryPeer.ts"
import type { Respond, Sent } from "./memoryPeer.ts"

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const found = Cause.findErrorOption(exit.cause)
  if (Option.isNone(found)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return found.value
}

const fresh = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provideService(Effect.scoped(effect), EraCache, new Map())

const metaOf = (sent: Sent): Record<string, unknown> => {
  const meta = sent.params["_meta"]
  return typeof meta === "object" && meta !== null ? { ...meta } : {}
}

const content = (text: string) => ({ resultType: "complete", content: [{ type: "text", text }] })

describe("modern-era requests", () => {
  it.effect("_meta on every request: version, capabilities as declared, clientInfo, logLevel when set; caller keys kept", () =>
    fresh(Effect.gen(function*() {
      const { client, sent } = yield* session(modern(), {
        capabilities: { elicitation: {} },
        logLevel: "warning"
      })
      yield* client.awaitReady
      yield* client.request("tools/call", {
        name: "t",
        _meta: { progressToken: 7, traceparent: "00-abc-01", "io.modelcontextprotocol/protocolVersion": "1999-01-01" }
      })
      yield* client.request("tools/list")
      for (const request of sent) {
        const meta = metaOf(request)
        assert.strictEqual(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28", request.method)
        // As declared, with the tasks extension every modern request declares (the server may answer with a task).
        assert.deepStrictEqual(meta["io.modelcontextprotocol/clientCapabilities"], {
          elicitation: {},
          extensions: { "io.modelcontextprotocol/tasks": {} }
        })
        assert.deepStrictEqual(meta["io.modelcontextprotocol/clientInfo"], { name: "mcp-fleet-test", version: "0.0.0" })
        assert.strictEqual(meta["io.modelcontextprotocol/logLevel"], "warning")
      }
      const call = metaOf(sent[1]!)
      assert.strictEqual(call["progressToken"], 7)
      assert.strictEqual(call["traceparent"], "00-abc-01")
    })))

  it.effect("resultType: absent and complete are results; an unknown one fails that call only, the session lives", () =>
    fresh(Effect.gen(function*() {
      const respond = modern((sent, reply) => {
        const name = sent.params["name"]
        if (name === "weird") return reply(result(sent, { resultType: "sideways", content: [] }))
        if (name === "bare") return reply(result(sent, { content: [{ type: "text", text: "no resultType" }] }))
        reply(result(sent, { ...content("ok"), structuredContent: name === "array" ? [1, 2] : "text" }))
      })
      const { client } = yield* session(respond)
      yield* client.awaitReady
      const weird = failureOf(yield* Effect.exit(client.callTool("weird", {})))
      assert.strictEqual(weird._tag, "ProtocolError")
      assert.include(weird.message, "sideways")
      assert.isTrue(client.isAlive())
      assert.deepStrictEqual((yield* client.callTool("bare", {})).content, [{ type: "text", text: "no resultType" }])
      assert.deepStrictEqual((yield* client.callTool("array", {})).structuredContent, [1, 2])
      assert.strictEqual((yield* client.callTool("string", {})).structuredContent, "text")
    })))

  it.effect("ping and logging/setLevel do not exist in the modern era: typed errors, nothing sent", () =>
    fresh(Effect.gen(function*() {
      const { client, methods } = yield* session(modern())
      yield* client.awaitReady
      assert.strictEqual(failureOf(yield* Effect.exit(client.ping()))._tag, "NotInEra")
      const setLevel = failureOf(yield* Effect.exit(client.request("logging/setLevel", { level: "info" })))
      assert.strictEqual(setLevel._tag, "NotInEra")
      assert.deepStrictEqual(methods(), ["server/discover"])
    })))
})

/** An opaque state with whitespace at both ends and non-ASCII inside: echoed byte-for-byte or not at all. */
const state_ = (n: number) => ` ${JSON.stringify({ n, pad: " \u00e9\u4e16 " })}\n`

/** A tool that asks for one elicitation per round, `rounds` times, then answers with what it was given. */
const asking = (rounds: number, withState: boolean): Respond =>
  modern((sent, reply) => {
    const responses = sent.params["inputResponses"]
    const round = typeof sent.params["round"] === "number" ? sent.params["round"] : 0
    const given = typeof responses === "object" && responses !== null ? Object.keys(responses).length : 0
    const state = sent.params["requestState"]
    const done = typeof state === "string" ? Number(JSON.parse(state).n) : given > 0 ? 1 : 0
    if (done >= rounds) return reply(result(sent, content(`done after ${done}: ${JSON.stringify(responses)}`)))
    reply(result(sent, {
      resultType: "input_required",
      inputRequests: {
        [`ask${round}`]: {
          method: "elicitation/create",
          params: { message: "sure?", requestedSchema: { type: "object" } }
        }
      },
      ...(withState ? { requestState: state_(done + 1) } : {})
    }))
  })

const accept = (method: string, params: unknown) =>
  Effect.succeed({ action: "accept", content: { method, message: (params as { message?: string }).message } })

describe("MRTR (input_required)", () => {
  it.effect("inputRequired: \"return\" relays the round as it came: one request, no handler asked", () =>
    fresh(Effect.gen(function*() {
      let asked = 0
      const { client, sent } = yield* session(asking(2, true), {
        capabilities: { elicitation: {} },
        answerInput: (method, params) => Effect.sync(() => asked++).pipe(Effect.andThen(accept(method, params)))
      })
      yield* client.awaitReady
      const raw = yield* client.request("tools/call", { name: "t", arguments: {} }, { inputRequired: "return" })
      assert.deepStrictEqual(raw, {
        resultType: "input_required",
        inputRequests: {
          ask0: { method: "elicitation/create", params: { message: "sure?", requestedSchema: { type: "object" } } }
        },
        requestState: state_(1)
      })
      assert.strictEqual(asked, 0)
      assert.strictEqual(sent.filter((s) => s.method === "tools/call").length, 1)
    })))

  it.effect("fulfilled through the handler; the retry has a new id, inputResponses and requestState byte-for-byte", () =>
    fresh(Effect.gen(function*() {
      const { client, sent } = yield* session(asking(2, true), {
        capabilities: { elicitation: {} },
        answerInput: accept
      })
      yield* client.awaitReady
      const done = yield* client.callTool("t", { a: 1 })
      assert.include(String(done.content[0]?.["text"]), "done after 2")
      const calls = sent.filter((s) => s.method === "tools/call")
      assert.strictEqual(calls.length, 3)
      assert.strictEqual(new Set(calls.map((c) => c.id)).size, 3, "a new JSON-RPC id each round")
      assert.isUndefined(calls[0]!.params["requestState"])
      assert.strictEqual(calls[1]!.params["requestState"], state_(1))
      assert.strictEqual(calls[2]!.params["requestState"], state_(2))
      assert.deepStrictEqual(calls[1]!.params["inputResponses"], {
        ask0: { action: "accept", content: { method: "elicitation/create", message: "sure?" } }
      })
      for (const call of calls) assert.deepStrictEqual(call.params["arguments"], { a: 1 })
    })))

  it.effect("no requestState in the answer: none in the retry", () =>
    fresh(Effect.gen(function*() {
      const { client, sent } = yield* session(asking(1, false), {
        capabilities: { elicitation: {} },
        answerInput: accept
      })
      yield* client.awaitReady
      yield* client.callTool("t", {})
      const retry = sent.filter((s) => s.method === "tools/call")[1]!
      assert.isFalse("requestState" in retry.params)
      assert.isDefined(retry.params["inputResponses"])
    })))

  it.effect("rounds are bounded: a server that never stops asking gets InputRoundsExceeded", () =>
    fresh(Effect.gen(function*() {
      const { client, sent } = yield* session(asking(1_000, true), {
        capabilities: { elicitation: {} },
        answerInput: accept,
        maxInputRounds: 3
      })
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.callTool("t", {})))
      assert.strictEqual(error._tag, "InputRoundsExceeded")
      assert.strictEqual(sent.filter((s) => s.method === "tools/call").length, 4)
    })))

  it.effect("an input request for a capability the client did not declare is a typed error (and no handler is asked)", () =>
    fresh(Effect.gen(function*() {
      let asked = 0
      const { client } = yield* session(asking(1, true), {
        capabilities: {},
        answerInput: (method, params) => Effect.suspend(() => (asked++, accept(method, params)))
      })
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.callTool("t", {})))
      assert.strictEqual(error._tag, "InputUnavailable")
      assert.include(error.message, "elicitation")
      assert.strictEqual(asked, 0)
    })))

  it.effect("parallel calls keep their own rounds: no inputResponses or requestState crosses to another call", () =>
    fresh(Effect.gen(function*() {
      const respond = modern((sent, reply) => {
        if (sent.params["name"] === "plain") return reply(result(sent, content("plain")))
        asking(1, true)(sent, reply)
      })
      const { client, sent } = yield* session(respond, { capabilities: { elicitation: {} }, answerInput: accept })
      yield* client.awaitReady
      yield* Effect.all([client.callTool("ask", {}), client.callTool("plain", {}), client.callTool("plain", {})], {
        concurrency: "unbounded"
      })
      for (const plain of sent.filter((s) => s.params["name"] === "plain")) {
        assert.isFalse("inputResponses" in plain.params)
        assert.isFalse("requestState" in plain.params)
      }
    })))

  it.effect("a handler's failure is a typed error naming it; a server error mid-rounds is that call's error", () =>
    fresh(Effect.gen(function*() {
      const { client } = yield* session(asking(1, true), {
        capabilities: { elicitation: {} },
        answerInput: () => Effect.fail({ message: "the user closed the dialog" })
      })
      yield* client.awaitReady
      const failed = failureOf(yield* Effect.exit(client.callTool("t", {})))
      assert.strictEqual(failed._tag, "InputUnavailable")
      assert.include(failed.message, "the user closed the dialog")
      const erroring = modern((sent, reply) =>
        sent.params["inputResponses"] === undefined ? asking(1, true)(sent, reply) : reply(error(sent, -32603, "boom"))
      )
      const second = yield* session(erroring, { capabilities: { elicitation: {} }, answerInput: accept })
      yield* second.client.awaitReady
      assert.strictEqual(failureOf(yield* Effect.exit(second.client.callTool("t", {})))._tag, "RemoteError")
    })))

  it.effect("the client's handlers answer input requests, and the capabilities they add are declared in _meta", () =>
    fresh(Effect.gen(function*() {
      const respond = modern((sent, reply) => {
        if (sent.params["inputResponses"] !== undefined) {
          return reply(result(sent, content(JSON.stringify(sent.params["inputResponses"]))))
        }
        reply(result(sent, {
          resultType: "input_required",
          inputRequests: {
            confirm: {
              method: "elicitation/create",
              params: {
                message: "go?",
                requestedSchema: { type: "object", properties: { go: { type: "boolean", default: true } } }
              }
            }
          }
        }))
      })
      const { client, sent } = yield* session(respond, { handlers: { elicitation: Elicitation.acceptDefaults } })
      yield* client.awaitReady
      const done = yield* client.callTool("t", {})
      assert.deepStrictEqual(JSON.parse(String(done.content[0]?.["text"])), {
        confirm: { action: "accept", content: { go: true } }
      })
      const declared = metaOf(sent[0]!)["io.modelcontextprotocol/clientCapabilities"]
      assert.isTrue(typeof declared === "object" && declared !== null && "elicitation" in declared)
    })))
})
