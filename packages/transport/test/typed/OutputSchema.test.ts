/**
 * `structuredContent` checked against the tool's `outputSchema` (by default), through `McpClient.make` against an
 * in-memory peer: a match returned, a mismatch a `StructuredContentInvalid` with the JSON Pointer of the first wrong
 * value, a missing `structuredContent` the same at the root, tool errors unchecked, unlisted tools unchecked, the
 * option that turns it off, 2020-12 as written (conditionals, `$defs`, `unevaluatedProperties`) and the other
 * dialects, a schema that cannot be checked, and the cache per tool list.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient, McpError } from "@mcp-fleet/transport"
import { Effect, Redacted, Schema } from "effect"
import { failureOf, framesWith } from "../faults/helpers.ts"
import { controlledPeer } from "../peers.ts"
import type { Message } from "../peers.ts"

const weather = {
  type: "object",
  properties: { temperature: { type: "number" }, conditions: { type: "string" } },
  required: ["temperature", "conditions"]
}

interface Tools {
  /** The tools each listing answers (the last one repeated). */
  readonly lists: ReadonlyArray<ReadonlyArray<Readonly<Record<string, unknown>>>>
  /** The result of each call, by tool name. */
  readonly results: Readonly<Record<string, unknown>>
}

const argsOf = (msg: Message): Readonly<Record<string, unknown>> => {
  const params = msg["params"]
  return typeof params === "object" && params !== null && "name" in params && typeof params.name === "string"
    ? { name: params.name }
    : {}
}

/** A ready client of a peer serving `tools`. */
const clientOf = (tools: Tools, options: { readonly validateStructuredContent?: boolean; readonly env?: {} } = {}) =>
  Effect.gen(function*() {
    let lists = 0
    const { frames, layer } = yield* controlledPeer({
      onRequest: (msg: Message) =>
        Effect.succeed(
          msg.method === "tools/list"
            ? { tools: tools.lists[Math.min(lists++, tools.lists.length - 1)] }
            : msg.method === "tools/call"
            ? tools.results[String(argsOf(msg)["name"])]
            : undefined
        )
    })
    const client = yield* McpClient.make({ command: "server", ...options }).pipe(Effect.provide(layer))
    yield* client.awaitReady
    return { client, frames }
  })

const tool = (name: string, outputSchema?: Readonly<Record<string, unknown>>) => ({
  name,
  inputSchema: { type: "object" },
  ...(outputSchema === undefined ? {} : { outputSchema })
})
const structured = (value: unknown) => ({
  content: [{ type: "text", text: JSON.stringify(value) }],
  structuredContent: value
})

const invalidOf = (exit: Parameters<typeof failureOf>[0]) => {
  const error = failureOf(exit)
  if (!(error instanceof McpError.StructuredContentInvalid)) throw new Error(`not StructuredContentInvalid: ${error}`)
  return error
}

describe("structuredContent checked against the tool's outputSchema", () => {
  it.effect("a match is returned; a mismatch is StructuredContentInvalid with the path of the first wrong value", () =>
    Effect.gen(function*() {
      const { client } = yield* clientOf({
        lists: [[tool("good", weather), tool("bad", weather)]],
        results: {
          good: structured({ temperature: 21.5, conditions: "sunny" }),
          bad: structured({ temperature: "warm", conditions: "sunny" })
        }
      })
      yield* client.listTools()
      const good = yield* client.callTool("good", {})
      assert.deepStrictEqual(good.structuredContent, { temperature: 21.5, conditions: "sunny" })
      const error = invalidOf(yield* Effect.exit(client.callTool("bad", {})))
      assert.strictEqual(error.tool, "bad")
      assert.strictEqual(error.path, "/temperature")
      assert.strictEqual(error.detail, "must be number")
      assert.strictEqual(error.kind._tag, "ServerFault")
      assert.strictEqual(
        error.message,
        "MCP server \"server\" answered tool \"bad\" with structuredContent that does not match the tool's outputSchema at /temperature: must be number"
      )
    }))

  it.effect("no structuredContent for a tool with an outputSchema fails at the root; a tool error is not checked", () =>
    Effect.gen(function*() {
      const { client } = yield* clientOf({
        lists: [[tool("text-only", weather), tool("broken", weather)]],
        results: {
          "text-only": { content: [{ type: "text", text: "21.5" }] },
          broken: { content: [{ type: "text", text: "no weather today" }], isError: true }
        }
      })
      yield* client.listTools()
      const error = invalidOf(yield* Effect.exit(client.callTool("text-only", {})))
      assert.strictEqual(error.path, "")
      assert.include(
        error.message,
        "at its root: the tool declares an outputSchema, but the result has no structuredContent"
      )
      const toolError = yield* client.callTool("broken", {})
      assert.isTrue(toolError.isError)
    }))

  it.effect("a tool not in the latest list (or without an outputSchema) is returned unchecked", () =>
    Effect.gen(function*() {
      const { client } = yield* clientOf({
        lists: [[tool("plain"), tool("typed", weather)]],
        results: { plain: structured({ anything: 1 }), typed: structured({ temperature: "x", conditions: "c" }) }
      })
      // Before any listing the client knows no schema: nothing is checked (and nothing is listed to check).
      const early = yield* client.callTool("typed", {})
      assert.deepStrictEqual(early.structuredContent, { temperature: "x", conditions: "c" })
      yield* client.listTools()
      assert.deepStrictEqual((yield* client.callTool("plain", {})).structuredContent, { anything: 1 })
      assert.strictEqual(invalidOf(yield* Effect.exit(client.callTool("typed", {}))).path, "/temperature")
    }))

  it.effect("validateStructuredContent: false returns every result unchecked", () =>
    Effect.gen(function*() {
      const { client } = yield* clientOf({
        lists: [[tool("typed", weather)]],
        results: { typed: structured({ temperature: "x", conditions: "c" }) }
      }, { validateStructuredContent: false })
      yield* client.listTools()
      assert.deepStrictEqual((yield* client.callTool("typed", {})).structuredContent, {
        temperature: "x",
        conditions: "c"
      })
    }))

  it.effect("2020-12 as written: if/then/else, $defs and $ref, unevaluatedProperties, prefixItems", () =>
    Effect.gen(function*() {
      const schema = {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        $defs: { point: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false } },
        type: "object",
        properties: { kind: { enum: ["point", "name"] }, at: { $ref: "#/$defs/point" }, name: { type: "string" } },
        if: { properties: { kind: { const: "point" } } },
        then: { required: ["at"] },
        else: { required: ["name"] },
        unevaluatedProperties: false
      }
      const { client } = yield* clientOf({
        lists: [[
          tool("ok", schema),
          tool("no-at", schema),
          tool("extra", schema),
          tool("long", schema)
        ]],
        results: {
          ok: structured({ kind: "point", at: [1, 2] }),
          "no-at": structured({ kind: "point", name: "x" }),
          extra: structured({ kind: "name", name: "x", color: "red" }),
          long: structured({ kind: "point", at: [1, 2, 3] })
        }
      })
      yield* client.listTools()
      yield* client.callTool("ok", {})
      const noAt = invalidOf(yield* Effect.exit(client.callTool("no-at", {})))
      assert.deepStrictEqual([noAt.path, noAt.detail], ["", "must have required property 'at'"])
      const extra = invalidOf(yield* Effect.exit(client.callTool("extra", {})))
      assert.deepStrictEqual([extra.path, extra.detail], ["", "must NOT have unevaluated properties (\"color\")"])
      const long = invalidOf(yield* Effect.exit(client.callTool("long", {})))
      assert.strictEqual(long.path, "/at")
    }))

  it.effect("other dialects: draft-07 and 2019-09 are checked as such; draft-04 cannot be checked, and says so", () =>
    Effect.gen(function*() {
      const of = (dialect: string) => ({ ...weather, $schema: dialect })
      const { client } = yield* clientOf({
        lists: [[
          tool("d7", of("http://json-schema.org/draft-07/schema#")),
          tool("d6", of("http://json-schema.org/draft-06/schema#")),
          tool("d2019", of("https://json-schema.org/draft/2019-09/schema")),
          tool("d4", of("http://json-schema.org/draft-04/schema#")),
          tool("remote", { $ref: "https://schemas.example.com/weather.json" })
        ]],
        results: {
          d7: structured({ temperature: "x", conditions: "c" }),
          d6: structured({ temperature: 1 }),
          d2019: structured({ temperature: 1, conditions: 2 }),
          d4: structured({ temperature: 1, conditions: "c" }),
          remote: structured({ temperature: 1, conditions: "c" })
        }
      })
      yield* client.listTools()
      assert.strictEqual(invalidOf(yield* Effect.exit(client.callTool("d7", {}))).path, "/temperature")
      assert.strictEqual(
        invalidOf(yield* Effect.exit(client.callTool("d6", {}))).detail,
        "must have required property 'conditions'"
      )
      assert.strictEqual(invalidOf(yield* Effect.exit(client.callTool("d2019", {}))).path, "/conditions")
      const d4 = invalidOf(yield* Effect.exit(client.callTool("d4", {})))
      assert.match(
        d4.detail,
        /^the outputSchema cannot be checked: its \$schema .*draft-04.* is a dialect this client does not check/
      )
      const remote = invalidOf(yield* Effect.exit(client.callTool("remote", {})))
      assert.match(remote.detail, /^the outputSchema cannot be checked: can't resolve reference/)
    }))

  it.effect("cached per tool list: a new list's schema applies; two tools may share an $id", () =>
    Effect.gen(function*() {
      const number = {
        $id: "https://schemas.example.com/weather.json",
        type: "object",
        properties: { t: { type: "number" } }
      }
      const text = {
        $id: "https://schemas.example.com/weather.json",
        type: "object",
        properties: { t: { type: "string" } }
      }
      const { client, frames } = yield* clientOf({
        lists: [[tool("w", number), tool("v", number)], [tool("w", text)]],
        results: { w: structured({ t: "warm" }), v: structured({ t: 1 }) }
      })
      yield* client.listTools()
      assert.strictEqual(invalidOf(yield* Effect.exit(client.callTool("w", {}))).path, "/t")
      // Another tool with the same $id compiles beside the first.
      yield* client.callTool("v", {})
      // The server's list changes: w now answers text, and its new schema says so.
      yield* client.listTools()
      assert.deepStrictEqual((yield* client.callTool("w", {})).structuredContent, { t: "warm" })
      assert.strictEqual(framesWith(frames, "tools/list").length, 2)
    }))

  it.effect("a typed call: the outputSchema first, then the caller's schema", () =>
    Effect.gen(function*() {
      const { client } = yield* clientOf({
        lists: [[tool("w", weather)]],
        results: { w: structured({ temperature: 3, conditions: "snow" }) }
      })
      yield* client.listTools()
      const result = yield* client.callTool("w", {}, {
        schema: Schema.Struct({ temperature: Schema.Number, conditions: Schema.String })
      })
      assert.strictEqual(result.isError === true ? undefined : result.structured.conditions, "snow")
    }))

  it.effect("the server's text in the error is scrubbed of the client's secrets", () =>
    Effect.gen(function*() {
      const secret = "s3cr3t-t0k3n-value"
      const { client } = yield* clientOf({
        lists: [[tool("w", { type: "object", additionalProperties: false })]],
        results: { w: structured({ [secret]: 1 }) }
      }, { env: { TOKEN: Redacted.make(secret) } })
      yield* client.listTools()
      const error = invalidOf(yield* Effect.exit(client.callTool("w", {})))
      assert.notInclude(error.message, secret)
      assert.include(error.detail, "<redacted>")
    }))
})
