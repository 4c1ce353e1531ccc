/**
 * The fake server's 2026-07-28 era (`modern`) and its fault switches, over raw JSON-RPC: on stdio (RawClient)
 * and on HTTP (fetch). Each mode does what the README says it does.
 */
import { describe, expect, it, type TestContext } from "vitest"
import * as FakeServer from "../src/FakeServer.ts"
import { bodyMessage, post, SseReader, startHttp } from "./HttpRaw.ts"
import { type Message, RawClient } from "./RawClient.ts"

const VERSION = "2026-07-28"
const META = {
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientInfo": { name: "raw-modern-test", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, roots: {} }
}
const SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"
type Record_ = Record<string, unknown>

const start = (ctx: TestContext, options: FakeServer.Options): RawClient => {
  const client = RawClient.start(FakeServer.command(options))
  ctx.onTestFinished(async () => {
    await client.kill()
  })
  return client
}
const modern = (client: RawClient, method: string, params: Record_ = {}): Promise<Message> =>
  client.request(method, { ...params, _meta: META })
const resultOf = (message: { readonly result?: unknown; readonly error?: unknown }): Record_ => {
  if (message.error !== undefined) throw new Error(`expected a result, got ${JSON.stringify(message.error)}`)
  return message.result as Record_
}
const toolNames = (result: Record_): Array<string> => (result.tools as Array<{ name: string }>).map((t) => t.name)
const accept = { elicitation: { action: "accept", content: { confirm: true } } }

describe("fake server, modern (stdio)", () => {
  it("rejects initialize and claim-less requests with -32022 naming 2026-07-28; ping is gone", async (ctx) => {
    const client = start(ctx, { modes: ["modern"] })
    const init = await client.initialize()
    expect(init.error).toEqual({
      code: -32022,
      message: "Unsupported protocol version: none claimed",
      data: { supported: [VERSION], requested: "unknown" }
    })
    expect((await client.request("tools/list")).error?.code).toBe(-32022)
    expect((await modern(client, "ping")).error?.code).toBe(-32601)
    expect((await modern(client, "logging/setLevel", { level: "info" })).error?.code).toBe(-32601)
  })

  it("discovers; results carry resultType, serverInfo, and ttlMs/cacheScope on lists", async (ctx) => {
    const client = start(ctx, { modes: ["modern"], ttl: 5000 })
    const discover = resultOf(await modern(client, "server/discover"))
    expect(discover.supportedVersions).toEqual([VERSION])
    expect(discover.resultType).toBe("complete")
    const list = resultOf(await modern(client, "tools/list"))
    expect(list).toMatchObject({ resultType: "complete", ttlMs: 5000, cacheScope: "private" })
    expect(toolNames(list)).toEqual(expect.arrayContaining(["echo", "mrtr", "meta", "touch"]))
    for (const method of ["prompts/list", "resources/list", "resources/templates/list"]) {
      expect(resultOf(await modern(client, method))).toMatchObject({ ttlMs: 5000, cacheScope: "private" })
    }
    const call = resultOf(await modern(client, "tools/call", { name: "meta", arguments: {} }))
    expect(call.structuredContent).toEqual(META)
    expect(call.resultType).toBe("complete")
    expect(call).not.toHaveProperty("ttlMs")
    expect(call._meta).toEqual({ "io.modelcontextprotocol/serverInfo": { name: "fake-mcp-server", version: "1.0.0" } })
  })

  it("subscriptions/listen: acknowledged with the honoured subset; changes tagged; cancelled stops them", async (ctx) => {
    const client = start(ctx, { modes: ["modern"] })
    const listenId = client.sendRequest("subscriptions/listen", {
      notifications: { toolsListChanged: true, resourceSubscriptions: ["fake://readme"], unknownThing: true },
      _meta: META
    })
    const ack = await client.waitFor((m) => m.method === "notifications/subscriptions/acknowledged", "ack")
    expect(ack.params).toEqual({
      notifications: { toolsListChanged: true, resourceSubscriptions: ["fake://readme"] },
      _meta: { [SUBSCRIPTION]: listenId }
    })
    await modern(client, "tools/call", { name: "change_tools", arguments: { burst: 2 } })
    await modern(client, "tools/call", { name: "change_tools", arguments: { list: "prompts" } })
    await modern(client, "tools/call", { name: "touch", arguments: { uri: "fake://readme" } })
    const seen = client.messages.filter((m) => m.method?.startsWith("notifications/") === true && m.id === undefined)
    expect(seen.map((m) => [m.method, m.params])).toEqual([
      ["notifications/subscriptions/acknowledged", ack.params],
      ["notifications/tools/list_changed", { _meta: { [SUBSCRIPTION]: listenId } }],
      ["notifications/tools/list_changed", { _meta: { [SUBSCRIPTION]: listenId } }],
      ["notifications/resources/updated", { uri: "fake://readme", _meta: { [SUBSCRIPTION]: listenId } }]
    ])
    client.notify("notifications/cancelled", { requestId: listenId })
    const before = client.messages.length
    await modern(client, "tools/call", { name: "change_tools", arguments: {} })
    expect(client.messages.slice(before).every((m) => m.method === undefined)).toBe(true)
  })

  it("MRTR: input_required with requestState; the exact echo completes; a tampered or dropped state fails", async (ctx) => {
    const client = start(ctx, { modes: ["modern"] })
    const first = resultOf(
      await modern(client, "tools/call", { name: "mrtr", arguments: { kinds: ["elicitation", "roots"] } })
    )
    expect(first.resultType).toBe("input_required")
    expect(Object.keys(first.inputRequests as Record_)).toEqual(["elicitation", "roots"])
    const state = first.requestState as string
    expect(state).toMatch(/^fake-state-1:é 1$/)
    const tampered = await modern(client, "tools/call", {
      name: "mrtr",
      arguments: {},
      inputResponses: accept,
      requestState: state.normalize("NFD")
    })
    expect(tampered.error?.code).toBe(-32602)
    const dropped = await modern(client, "tools/call", { name: "mrtr", arguments: {}, inputResponses: accept })
    expect(dropped.error?.message).toContain("(absent)")
    const done = resultOf(
      await modern(client, "tools/call", {
        name: "mrtr",
        arguments: {},
        inputResponses: accept,
        requestState: state
      })
    )
    expect(done.resultType).toBe("complete")
    expect(done.structuredContent).toEqual({ inputResponses: accept, rounds: 2 })
    // A state is good for one retry only.
    const replayed = await modern(client, "tools/call", { name: "mrtr", inputResponses: accept, requestState: state })
    expect(replayed.error?.code).toBe(-32602)
    // prompts/get and resources/read have MRTR variants too.
    const prompt = resultOf(await modern(client, "prompts/get", { name: "mrtr" }))
    expect(prompt.resultType).toBe("input_required")
    const read = resultOf(await modern(client, "resources/read", { uri: "fake://mrtr" }))
    expect(read.resultType).toBe("input_required")
  })

  it("faults: wrong-result-type, mrtr-endless, listen-no-ack, unsupported-empty", async (ctx) => {
    const wrong = start(ctx, { modes: ["modern", "wrong-result-type"] })
    expect(resultOf(await modern(wrong, "tools/call", { name: "echo", arguments: {} })).resultType).toBe("bogus")
    expect(resultOf(await modern(wrong, "tools/list")).resultType).toBe("complete")

    const endless = start(ctx, { modes: ["modern", "mrtr-endless"] })
    let round = resultOf(await modern(endless, "tools/call", { name: "mrtr", arguments: {} }))
    for (let i = 2; i <= 4; i++) {
      round = resultOf(
        await modern(endless, "tools/call", {
          name: "mrtr",
          inputResponses: accept,
          requestState: round.requestState
        })
      )
      expect(round.resultType).toBe("input_required")
      expect(round.requestState).toBe(`fake-state-${i}:é ${i}`)
    }

    const silent = start(ctx, { modes: ["modern", "listen-no-ack"] })
    silent.sendRequest("subscriptions/listen", { notifications: { toolsListChanged: true }, _meta: META })
    await modern(silent, "tools/call", { name: "change_tools", arguments: {} })
    // The change went out on the (never acknowledged) stream; no ack came before it.
    const methods = silent.messages.filter((m) => m.id === undefined).map((m) => m.method)
    expect(methods).toEqual(["notifications/tools/list_changed"])

    const empty = start(ctx, { modes: ["modern", "unsupported-empty"] })
    const rejected = await modern(empty, "server/discover")
    expect(rejected.error).toEqual({
      code: -32022,
      message: "Unsupported protocol version",
      data: { supported: [], requested: VERSION }
    })
  })
})

describe("fake server, modern (HTTP)", () => {
  const headers = (method: string, name?: string): Record<string, string> => ({
    "mcp-protocol-version": VERSION,
    "mcp-method": method,
    ...(name === undefined ? {} : { "mcp-name": name })
  })
  let id = 0
  const body = (method: string, params: Record_ = {}) => ({
    jsonrpc: "2.0",
    id: ++id,
    method,
    params: { ...params, _meta: META }
  })

  it("stateless POSTs with JSON replies; -32022 / -32020 are 400 with the id; unknown method 404; GET 405", async (ctx) => {
    const server = await startHttp(ctx, ["modern", "ttl=1000"])
    const discover = await post(server.url, body("server/discover"), headers("server/discover"))
    expect(discover.status).toBe(200)
    expect(discover.headers.get("mcp-session-id")).toBeNull()
    expect(resultOf(await bodyMessage(discover))).toMatchObject({ supportedVersions: [VERSION], ttlMs: 1000 })
    const init = { jsonrpc: "2.0", id: 77, method: "initialize", params: { protocolVersion: "2025-11-25" } }
    const legacy = await post(server.url, init, { "mcp-protocol-version": "2025-11-25" })
    expect(legacy.status).toBe(400)
    expect(await bodyMessage(legacy)).toMatchObject({ id: 77, error: { code: -32022, data: { supported: [VERSION] } } })
    const noName = await post(server.url, body("tools/call", { name: "echo", arguments: {} }), headers("tools/call"))
    expect(noName.status).toBe(400)
    expect(await bodyMessage(noName)).toMatchObject({ error: { code: -32020 } })
    const encoded = await post(
      server.url,
      body("tools/call", { name: "echo", arguments: { a: 1 } }),
      headers("tools/call", `=?base64?${Buffer.from("echo").toString("base64")}?=`)
    )
    expect(resultOf(await bodyMessage(encoded))).toMatchObject({ structuredContent: { a: 1 }, resultType: "complete" })
    const unknown = await post(server.url, body("nope/nope"), headers("nope/nope"))
    expect(unknown.status).toBe(404)
    expect(await bodyMessage(unknown)).toMatchObject({ error: { code: -32601 } })
    expect((await fetch(server.url, { headers: { accept: "text/event-stream" } })).status).toBe(405)
    const logged = await server.requests()
    expect(logged.some((r) => r.mcpMethod === "tools/call" && r.mcpName === "=?base64?ZWNobw==?=")).toBe(true)
  })

  it("subscriptions/listen is an SSE response: ack first, then one list_changed per change; closing it unsubscribes", async (ctx) => {
    const server = await startHttp(ctx, ["modern"])
    const listenBody = body("subscriptions/listen", { notifications: { toolsListChanged: true } })
    const listen = await post(server.url, listenBody, headers("subscriptions/listen"))
    expect(listen.headers.get("content-type")).toBe("text/event-stream")
    const stream = new SseReader(listen)
    const ack = JSON.parse((await stream.next())?.data ?? "null") as Record_
    expect(ack).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { toolsListChanged: true }, _meta: { [SUBSCRIPTION]: listenBody.id } }
    })
    const change = await post(
      server.url,
      body("tools/call", { name: "change_tools", arguments: {} }),
      headers("tools/call", "change_tools")
    )
    expect(resultOf(await bodyMessage(change)).structuredContent).toEqual({ generation: 1 })
    const changed = JSON.parse((await stream.next())?.data ?? "null") as Record_
    expect(changed).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { [SUBSCRIPTION]: listenBody.id } }
    })
    const list = await post(server.url, body("tools/list"), headers("tools/list"))
    expect(toolNames(resultOf(await bodyMessage(list)))).toContain("generation_1")
    await stream.cancel()
  })

  it("MRTR over HTTP checks requestState; listen-no-ack never acknowledges", async (ctx) => {
    const server = await startHttp(ctx, ["modern", "listen-no-ack"])
    const first = resultOf(
      await bodyMessage(await post(server.url, body("tools/call", { name: "mrtr" }), headers("tools/call", "mrtr")))
    )
    expect(first.resultType).toBe("input_required")
    const bad = await post(
      server.url,
      body("tools/call", { name: "mrtr", inputResponses: accept, requestState: `${String(first.requestState)} ` }),
      headers("tools/call", "mrtr")
    )
    expect(await bodyMessage(bad)).toMatchObject({ error: { code: -32602 } })
    const good = await post(
      server.url,
      body("tools/call", { name: "mrtr", inputResponses: accept, requestState: first.requestState }),
      headers("tools/call", "mrtr")
    )
    expect(resultOf(await bodyMessage(good)).resultType).toBe("complete")
    const listen = await post(
      server.url,
      body("subscriptions/listen", { notifications: { toolsListChanged: true } }),
      headers("subscriptions/listen")
    )
    const stream = new SseReader(listen)
    await post(server.url, body("tools/call", { name: "change_tools" }), headers("tools/call", "change_tools"))
    const firstEvent = JSON.parse((await stream.next())?.data ?? "null") as Record_
    expect(firstEvent.method).toBe("notifications/tools/list_changed")
    await stream.cancel()
  })
})
