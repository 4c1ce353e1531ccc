import { Buffer } from "node:buffer"
import { performance } from "node:perf_hooks"
import { describe, expect, it, type TestContext } from "vitest"
import * as FakeServer from "../src/FakeServer.ts"
import { commandLine, isRunning, type Message, RawClient, untilGone } from "./RawClient.ts"

// Every test starts its servers through `start`, which kills each one's process group and waits for
// its pipes to close when the test finishes (pass or fail).
const start = (
  ctx: TestContext,
  options: FakeServer.Options = {},
  startOptions: { readonly readStderr?: boolean } = {}
): RawClient => {
  const client = RawClient.start(FakeServer.command(options), startOptions)
  ctx.onTestFinished(async () => {
    await client.kill()
  })
  return client
}

const CONTROL_TOOLS = ["change_tools", "emit", "notify", "server_request", "exit", "sleep"]

interface Tool {
  readonly name: string
  readonly annotations?: Readonly<Record<string, unknown>>
}
interface ToolsPage {
  readonly tools: ReadonlyArray<Tool>
  readonly nextCursor?: string
}
interface CallResult {
  readonly content: ReadonlyArray<{ readonly type: string; readonly text: string }>
  readonly structuredContent?: unknown
  readonly isError?: boolean
}

const resultOf = <A>(message: Message): A => {
  if (message.error !== undefined) throw new Error(`expected a result, got error ${JSON.stringify(message.error)}`)
  return message.result as A
}
const page = (message: Message): ToolsPage => resultOf<ToolsPage>(message)
const names = (p: ToolsPage): Array<string> => p.tools.map((t) => t.name)
const call = (client: RawClient, name: string, args?: object, meta?: object): Promise<Message> =>
  client.request("tools/call", { name, ...(args === undefined ? {} : { arguments: args }), ...meta })
const isNotification = (method: string) => (m: Message): boolean => m.method === method && m.id === undefined

describe("fake server: basics (plain)", () => {
  it("writes its start line with pid and modes, without the run id", async (ctx) => {
    const client = start(ctx, { modes: ["plain"], tools: 3 })
    const line = await client.stderrLine((l) => l.includes("started"), "start line")
    expect(line).toBe(`fake-mcp-server: started pid=${client.pid} modes=plain,tools=3`)
  })

  it("answers initialize, echoing each supported protocol version and falling back to 2025-11-25", async (ctx) => {
    for (const version of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2099-01-01", "nonsense"]) {
      const client = start(ctx)
      const result = resultOf<Record<string, unknown>>(await client.initialize(version))
      const expected = version.startsWith("20") && version < "2026" ? version : "2025-11-25"
      expect(result.protocolVersion).toBe(expected)
      expect(result.capabilities).toEqual({ tools: { listChanged: true } })
      expect(result.serverInfo).toEqual({ name: "fake-mcp-server", version: "1.0.0" })
      expect(typeof result.instructions).toBe("string")
      expect(String(result.instructions)).toContain("Fake MCP server")
    }
  })

  it("answers ping, tools/list and tools/call echo", async (ctx) => {
    const client = start(ctx)
    await client.initialize()
    expect(resultOf(await client.request("ping"))).toEqual({})
    const list = page(await client.request("tools/list"))
    expect(names(list)).toEqual(["echo", "tool_1", "tool_2", ...CONTROL_TOOLS])
    expect(list.nextCursor).toBeUndefined()
    const args = { text: "héllo", n: 1, nested: { ok: true } }
    const echoed = resultOf<CallResult>(await call(client, "echo", args))
    expect(echoed.content).toEqual([{ type: "text", text: JSON.stringify(args) }])
    expect(echoed.structuredContent).toEqual(args)
    const synthetic = resultOf<CallResult>(await call(client, "tool_2", { value: "v" }))
    expect(synthetic.structuredContent).toEqual({ tool: "tool_2", args: { value: "v" } })
  })

  it("answers string ids and id 0", async (ctx) => {
    const client = start(ctx)
    client.sendRequest("ping", undefined, 0)
    client.sendRequest("ping", undefined, "abc")
    expect(resultOf(await client.response(0))).toEqual({})
    expect(resultOf(await client.response("abc"))).toEqual({})
  })

  it("rejects unknown methods (-32601), unknown tools (-32602) and malformed lines (-32700, id null)", async (ctx) => {
    const client = start(ctx)
    expect((await client.request("resources/list")).error?.code).toBe(-32601)
    expect((await call(client, "no_such_tool")).error?.code).toBe(-32602)
    expect((await client.request("tools/call", {})).error?.code).toBe(-32602)
    client.write("{this is not json\n")
    const parseError = await client.waitFor((m) => m.error?.code === -32700, "a parse error")
    expect(parseError.id).toBeNull()
    client.write("[1,2]\n")
    const invalid = await client.waitFor((m) => m.error?.code === -32600, "an invalid-request error")
    expect(invalid.id).toBeNull()
    expect(resultOf(await client.request("ping"))).toEqual({})
  })

  it("ignores notifications: nothing is written between them and the next answer", async (ctx) => {
    const client = start(ctx)
    await client.initialize()
    const before = client.messages.length
    client.notify("notifications/initialized")
    client.notify("notifications/roots/list_changed")
    client.notify("notifications/cancelled", { requestId: 12345 })
    const pingId = client.sendRequest("ping")
    await client.response(pingId)
    expect(client.messages.slice(before).map((m) => m.id)).toEqual([pingId])
  })

  it("drops the answer of a cancelled request", async (ctx) => {
    const client = start(ctx)
    const cancelled = client.sendRequest("tools/call", { name: "sleep", arguments: { ms: 30 } })
    client.notify("notifications/cancelled", { requestId: cancelled, reason: "test" })
    // The second sleep ends after the first one's timer, so its answer proves the first was dropped.
    const later = await call(client, "sleep", { ms: 60 })
    expect(resultOf<CallResult>(later).structuredContent).toEqual({ ms: 60 })
    expect(client.indexOf((m) => m.id === cancelled)).toBe(-1)
  })

  it("keeps serving after the client closed its stderr", async (ctx) => {
    const client = start(ctx)
    client.child.stderr.destroy()
    // A response to an unknown id makes the server log a line to the closed stderr (EPIPE).
    client.send({ jsonrpc: "2.0", id: "nobody-asked", result: {} })
    expect(resultOf<CallResult>(await call(client, "sleep", { ms: 30 })).structuredContent).toEqual({ ms: 30 })
    client.send({ jsonrpc: "2.0", id: "nobody-asked-either", result: {} })
    expect(resultOf(await client.request("ping"))).toEqual({})
    expect(client.exit).toBeUndefined()
  })

  it("exits with code 0 when stdin ends, or with exit-code=N", async (ctx) => {
    const plain = start(ctx)
    plain.endInput()
    expect(await plain.exited).toEqual({ code: 0, signal: null })
    const coded = start(ctx, { exitCode: 5 })
    coded.endInput()
    expect(await coded.exited).toEqual({ code: 5, signal: null })
  })

  it("reads tokens from FAKE_MCP_MODE as well as from its arguments", async (ctx) => {
    const spec = FakeServer.command({ modes: ["empty-list"], tokensVia: "env" })
    expect(spec.env[FakeServer.modeEnvVar]).toBe("empty-list")
    expect(spec.args.slice(1).every((a) => a.startsWith("run-id="))).toBe(true)
    const client = start(ctx, { modes: ["empty-list"], tokensVia: "env" })
    await client.initialize()
    expect(page(await client.request("tools/list")).tools).toEqual([])
  })

  it("refuses a bad token with exit code 2 and a stderr line naming it", async (ctx) => {
    for (const bad of ["no-such-mode", "tools=-1", "tools=abc", "crash-after=0", "colour=blue", "protocol="]) {
      const client = RawClient.start({ ...FakeServer.command(), args: [FakeServer.serverPath, bad] })
      ctx.onTestFinished(async () => {
        await client.kill()
      })
      expect((await client.closed).code).toBe(2)
      expect(client.stderrLines.join("\n")).toContain(`"${bad.split("=")[0]}`)
    }
  })
})

describe("fake server: modes", () => {
  it("junk-first writes non-JSON lines before any valid traffic", async (ctx) => {
    const client = start(ctx, { modes: ["junk-first"] })
    await client.initialize()
    const firstJson = client.lines.findIndex((l) => l.startsWith("{"))
    expect(firstJson).toBeGreaterThanOrEqual(2)
    expect(client.junk.length).toBeGreaterThanOrEqual(2)
    expect(client.lines.slice(0, firstJson).every((l) => client.junk.includes(l))).toBe(true)
  })

  it("reverse answers a full batch of concurrent calls in reverse order", async (ctx) => {
    const client = start(ctx, { modes: ["reverse"], batch: 4 })
    const ids = client.corked(() =>
      [1, 2, 3, 4].map((n) => client.sendRequest("tools/call", { name: "echo", arguments: { n } }, `call-${n}`))
    )
    await Promise.all(ids.map((id) => client.response(id)))
    expect(client.messages.map((m) => m.id)).toEqual(["call-4", "call-3", "call-2", "call-1"])
    expect(resultOf<CallResult>(await client.response("call-2")).structuredContent).toEqual({ n: 2 })
  })

  it("reverse releases a partial batch after its window, still reversed", async (ctx) => {
    const client = start(ctx, { modes: ["reverse"], batch: 10 })
    client.corked(() => {
      client.sendRequest("tools/call", { name: "echo", arguments: {} }, "a")
      client.sendRequest("tools/call", { name: "echo", arguments: {} }, "b")
    })
    await client.response("a")
    expect(client.messages.map((m) => m.id)).toEqual(["b", "a"])
  })

  it("slow delays every answer by delay=ms and sends progress first when asked", async (ctx) => {
    const client = start(ctx, { modes: ["slow"], delay: 60 })
    const t0 = performance.now()
    await client.request("ping")
    expect(performance.now() - t0).toBeGreaterThanOrEqual(55)
    const answer = await call(client, "echo", { x: 1 }, { _meta: { progressToken: "tok" } })
    const progress = client.messages.filter(isNotification("notifications/progress"))
    expect(progress.map((m) => m.params)).toEqual([
      { progressToken: "tok", progress: 1, total: 2, message: "step 1 of 2" },
      { progressToken: "tok", progress: 2, total: 2, message: "step 2 of 2" }
    ])
    expect(client.messages.indexOf(answer)).toBeGreaterThan(client.messages.indexOf(progress[1] ?? answer))
  })

  it("hang answers initialize and then nothing at all", async (ctx) => {
    const client = start(ctx, { modes: ["hang"] })
    await client.initialize()
    const ids = [
      client.sendRequest("ping"),
      client.sendRequest("tools/list"),
      client.sendRequest("tools/call", {
        name: "echo"
      })
    ]
    client.endInput() // the server reads every line before it sees EOF and exits
    expect((await client.closed).code).toBe(0)
    for (const id of ids) expect(client.indexOf((m) => m.id === id)).toBe(-1)
  })

  it("die-on-call exits with code 3 when a tool is called, after a last stderr line", async (ctx) => {
    const client = start(ctx, { modes: ["die-on-call"] })
    await client.initialize()
    expect(page(await client.request("tools/list")).tools.length).toBeGreaterThan(0)
    const id = client.sendRequest("tools/call", { name: "echo", arguments: {} })
    expect((await client.closed).code).toBe(3)
    expect(client.stderrLines.at(-1)).toContain("die-on-call")
    expect(client.indexOf((m) => m.id === id)).toBe(-1)
  })

  it("tools-list returns N synthetic tools on one page", async (ctx) => {
    const client = start(ctx, { modes: ["tools-list"], tools: 40 })
    const list = page(await client.request("tools/list"))
    expect(list.nextCursor).toBeUndefined()
    expect(list.tools.length).toBe(1 + 40 + CONTROL_TOOLS.length)
    expect(names(list).filter((n) => n.startsWith("tool_"))).toEqual(
      Array.from({ length: 40 }, (_, i) => `tool_${i + 1}`)
    )
  })

  it("tools-list-paged returns the tools over several pages linked by nextCursor", async (ctx) => {
    const client = start(ctx, { modes: ["tools-list-paged"], tools: 50, pageSize: 10 })
    const pages: Array<ToolsPage> = []
    let cursor: string | undefined
    do {
      const p = page(await client.request("tools/list", cursor === undefined ? {} : { cursor }))
      pages.push(p)
      cursor = p.nextCursor
    } while (cursor !== undefined)
    const all = pages.flatMap(names)
    expect(pages.map((p) => p.tools.length)).toEqual([10, 10, 10, 10, 10, 7])
    expect(all.length).toBe(57)
    expect(new Set(all).size).toBe(57)
    expect(all).toEqual(["echo", ...Array.from({ length: 50 }, (_, i) => `tool_${i + 1}`), ...CONTROL_TOOLS])
    expect((await client.request("tools/list", { cursor: "bogus" })).error?.code).toBe(-32602)
  })

  it("tools-list-endless gives a new cursor on every page", async (ctx) => {
    const client = start(ctx, { modes: ["tools-list-endless"] })
    const cursors = new Set<string>()
    let cursor: string | undefined
    for (let i = 0; i < 30; i++) {
      const p = page(await client.request("tools/list", cursor === undefined ? {} : { cursor }))
      expect(p.tools.length).toBeGreaterThan(0)
      expect(p.nextCursor).toBeDefined()
      cursor = p.nextCursor
      if (cursor !== undefined) cursors.add(cursor)
    }
    expect(cursors.size).toBe(30)
  })

  it("empty-list lists no tools, yet echo and the control tools still answer", async (ctx) => {
    const client = start(ctx, { modes: ["empty-list"] })
    await client.initialize()
    const list = page(await client.request("tools/list"))
    expect(list).toEqual({ tools: [] })
    expect(resultOf<CallResult>(await call(client, "echo", { a: 1 })).structuredContent).toEqual({ a: 1 })
    expect((await call(client, "tool_1")).error?.code).toBe(-32602)
  })

  it("list-changed changes its tools after initialized and emits list_changed burst times", async (ctx) => {
    const client = start(ctx, { modes: ["list-changed"], changeAfter: 10, burst: 3 })
    await client.initialize()
    const before = names(page(await client.request("tools/list")))
    await client.waitFor(isNotification("notifications/tools/list_changed"), "list_changed")
    // The burst is written in one go: once a later answer arrives, all of it has arrived.
    const after = names(page(await client.request("tools/list")))
    expect(client.messages.filter(isNotification("notifications/tools/list_changed")).length).toBe(3)
    expect(before).not.toContain("generation_1")
    expect(after).toContain("generation_1")
  })

  it("slow-list answers tools/list after list-delay while initialize and ping stay fast", async (ctx) => {
    const client = start(ctx, { modes: ["slow-list"], listDelay: 80 })
    await client.initialize()
    const [listId, pingId] = client.corked(() => [client.sendRequest("tools/list"), client.sendRequest("ping")])
    await client.response(listId)
    expect(client.indexOf((m) => m.id === pingId)).toBeLessThan(client.indexOf((m) => m.id === listId))
  })

  it("no-initialize never answers initialize, yet answers a later ping", async (ctx) => {
    const client = start(ctx, { modes: ["no-initialize"] })
    const initId = client.sendRequest("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "raw", version: "0" }
    })
    await client.response(client.sendRequest("ping"))
    expect(client.indexOf((m) => m.id === initId)).toBe(-1)
    client.endInput()
    await client.closed
    expect(client.indexOf((m) => m.id === initId)).toBe(-1)
  })

  it("init-delay answers initialize late: a ping sent after it is answered first", async (ctx) => {
    const client = start(ctx, { initDelay: 80 })
    const [initId, pingId] = client.corked(() => [
      client.sendRequest("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "0" }
      }),
      client.sendRequest("ping")
    ])
    const init = await client.response(initId)
    expect(resultOf<Record<string, unknown>>(init).protocolVersion).toBe("2025-06-18")
    expect(client.indexOf((m) => m.id === pingId)).toBeLessThan(client.indexOf((m) => m.id === initId))
  })

  it("ignore-sigterm survives SIGTERM and stdin EOF; only SIGKILL ends it", async (ctx) => {
    const client = start(ctx, { modes: ["ignore-sigterm"] })
    await client.initialize()
    process.kill(client.pid, "SIGTERM")
    await client.stderrLine((l) => l.includes("ignoring SIGTERM"), "SIGTERM ignored")
    expect(resultOf(await client.request("ping"))).toEqual({})
    client.endInput()
    await client.stderrLine((l) => l.includes("stdin ended; ignoring it"), "EOF ignored")
    expect(client.exit).toBeUndefined()
    expect(isRunning(client.pid)).toBe(true)
    process.kill(client.pid, "SIGKILL")
    expect(await client.exited).toEqual({ code: null, signal: "SIGKILL" })
  })

  it("grandchild keeps a recognisable grandchild alive, holding stdout, while the server runs", async (ctx) => {
    const client = start(ctx, { modes: ["grandchild"] })
    const line = await client.stderrLine((l) => l.startsWith("fake-mcp-server: grandchild pid="), "grandchild")
    const grandchild = Number(line.split("pid=")[1])
    expect(grandchild).toBeGreaterThan(0)
    expect(isRunning(grandchild)).toBe(true)
    const cmd = commandLine(grandchild)
    expect(cmd).toContain(FakeServer.serverPath)
    expect(cmd).toContain("--grandchild")
    expect(resultOf(await client.request("ping"))).toEqual({})
    // Like an npx wrapper's real server, it outlives the server itself...
    client.endInput()
    expect((await client.exited).code).toBe(0)
    expect(isRunning(grandchild)).toBe(true)
    expect(client.isClosed).toBe(false)
    // ...until the process group is killed: then every holder of stdout is gone.
    await client.kill()
    await untilGone(grandchild)
    expect(isRunning(grandchild)).toBe(false)
  })

  it("stderr-flood writes flood-bytes to stderr without blocking stdout answers", async (ctx) => {
    const client = start(ctx, { modes: ["stderr-flood"] }, { readStderr: false })
    // stderr is not read at all: the pipe (64 KiB) is full long before 8 MiB, yet answers flow.
    await client.initialize()
    for (let i = 0; i < 20; i++) expect(resultOf(await client.request("ping"))).toEqual({})
    expect(client.stderrBytes).toBe(0)
    client.readStderr()
    const startLine = `fake-mcp-server: started pid=${client.pid} modes=stderr-flood\n`
    await client.stderrAtLeast(startLine.length + 8 * 1024 * 1024)
    client.endInput()
    await client.closed
    expect(client.stderrBytes).toBe(startLine.length + 8 * 1024 * 1024)
  })

  it("huge-line answers tools/call with one line of exactly huge-bytes, then keeps serving", async (ctx) => {
    const client = start(ctx, { modes: ["huge-line"] })
    await client.initialize()
    const id = client.sendRequest("tools/call", { name: "echo", arguments: {} })
    const answer = await client.response(id)
    const line = client.lines.find((l) => l.length > 1_000_000)
    expect(Buffer.byteLength(line ?? "")).toBe(16 * 1024 * 1024)
    expect(resultOf<CallResult>(answer).structuredContent).toEqual({ tool: "echo" })
    expect(resultOf(await client.request("ping"))).toEqual({})
  })

  it("huge-bytes sets the line length", async (ctx) => {
    const client = start(ctx, { modes: ["huge-line"], hugeBytes: 1000 })
    const answer = await call(client, "tool_1")
    expect(client.lines.map((l) => Buffer.byteLength(l))).toContain(1000)
    expect(resultOf<CallResult>(answer).structuredContent).toEqual({ tool: "tool_1" })
  })

  it("crash-after=N exits with code 4 on the N-th request (initialize included), unanswered", async (ctx) => {
    const client = start(ctx, { crashAfter: 3 })
    await client.initialize()
    await client.request("ping")
    const id = client.sendRequest("tools/list")
    expect((await client.closed).code).toBe(4)
    expect(client.indexOf((m) => m.id === id)).toBe(-1)
    expect(client.stderrLines.at(-1)).toContain("crash-after=3")
  })

  it("protocol=<version> answers initialize with exactly that version", async (ctx) => {
    const older = start(ctx, { protocol: "2024-11-05" })
    expect(resultOf<Record<string, unknown>>(await older.initialize("2025-11-25")).protocolVersion).toBe("2024-11-05")
    const unknown = start(ctx, { protocol: "1999-01-01" })
    expect(resultOf<Record<string, unknown>>(await unknown.initialize("2025-11-25")).protocolVersion).toBe(
      "1999-01-01"
    )
  })

  it("annotations offers readOnlyHint true, false and absent", async (ctx) => {
    const client = start(ctx, { modes: ["annotations"] })
    const tools = page(await client.request("tools/list")).tools
    const hints = (name: string) => tools.find((t) => t.name === name)?.annotations
    expect(hints("hint_read_only")?.readOnlyHint).toBe(true)
    expect(hints("hint_writes")?.readOnlyHint).toBe(false)
    const absent = hints("hint_absent")
    expect(absent).toBeDefined()
    expect(Object.hasOwn(absent ?? {}, "readOnlyHint")).toBe(false)
    expect(Object.hasOwn(hints("hint_writes") ?? {}, "idempotentHint")).toBe(false)
    expect(tools.find((t) => t.name === "echo")?.annotations).toBeUndefined()
  })

  it("every mode but empty-list lists echo", async (ctx) => {
    // `setsid-grandchild` lists as the plain server does; its grandchild leaves the process group, which is all this
    // file's clean-up signals (transport/test/faults/processTree.integration.test.ts runs it, and ends it).
    const listing = FakeServer.modes.filter((m) =>
      !["empty-list", "hang", "die-on-call", "setsid-grandchild"].includes(m)
    )
    await Promise.all(listing.map(async (mode) => {
      const client = start(ctx, { modes: [mode], listDelay: 0, delay: 0, floodBytes: 0 })
      // The 2026-07-28 era needs its envelope on every request.
      const envelope = mode === "modern"
        ? {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
          }
        }
        : undefined
      expect(names(page(await client.request("tools/list", envelope)))).toContain("echo")
    }))
  })
})

describe("fake server: test-control tools", () => {
  it("change_tools changes the tool set and emits list_changed burst times before answering", async (ctx) => {
    const client = start(ctx)
    const before = names(page(await client.request("tools/list")))
    const answer = await call(client, "change_tools", { burst: 2 })
    const notifications = client.messages.filter(isNotification("notifications/tools/list_changed"))
    expect(notifications.length).toBe(2)
    expect(client.messages.indexOf(answer)).toBeGreaterThan(client.messages.indexOf(notifications[1] ?? answer))
    const after = names(page(await client.request("tools/list")))
    expect(after).not.toEqual(before)
    expect(after).toContain("generation_1")
    await call(client, "change_tools")
    const third = names(page(await client.request("tools/list")))
    expect(third).toContain("generation_2")
    expect(third).not.toContain("generation_1")
  })

  it("emit writes lines and raw bytes verbatim, then answers", async (ctx) => {
    const client = start(ctx)
    const duplicate = JSON.stringify({ jsonrpc: "2.0", id: "dup", result: {} })
    const answer = await call(client, "emit", {
      lines: ["not json at all", duplicate, duplicate],
      base64: Buffer.from([0xff, 0xfe, 0x41, 0x0a]).toString("base64") // invalid UTF-8
    })
    expect(resultOf<CallResult>(answer).structuredContent).toEqual({ bytes: 16 + 2 * (duplicate.length + 1) + 4 })
    expect(client.lines.slice(0, 4)).toEqual(["not json at all", duplicate, duplicate, "\uFFFD\uFFFDA"])
    // A partial line: the answer's own line completes it, so that answer arrives as one junk line.
    const partialId = client.sendRequest("tools/call", { name: "emit", arguments: { base64: btoa("{\"partial\":") } })
    const merged = await client.until(() => client.lines.find((l) => l.startsWith("{\"partial\":{")), "merged line")
    expect(client.junk).toContain(merged)
    expect(merged).toContain(`"id":${partialId}`)
    expect(resultOf(await client.request("ping"))).toEqual({})
  })

  it("notify emits count notifications with the given method and params", async (ctx) => {
    const client = start(ctx)
    await call(client, "notify", { count: 3, method: "notifications/custom", params: { k: 1 } })
    expect(client.messages.filter(isNotification("notifications/custom")).map((m) => m.params)).toEqual([
      { k: 1 },
      { k: 1 },
      { k: 1 }
    ])
    await call(client, "notify")
    const logs = client.messages.filter(isNotification("notifications/message"))
    expect(logs.length).toBe(1)
    expect(logs[0]?.params).toMatchObject({ level: "info" })
  })

  it("server_request sends a request to the client and returns its reply", async (ctx) => {
    const client = start(ctx)
    const id = client.sendRequest("tools/call", {
      name: "server_request",
      arguments: { method: "roots/list", params: { x: 1 } }
    })
    const request = await client.waitFor((m) => m.method === "roots/list", "the server's request")
    expect(request.params).toEqual({ x: 1 })
    expect(request.id).toBeDefined()
    client.send({ jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "Method not found" } })
    const answer = resultOf<CallResult>(await client.response(id))
    expect(answer.structuredContent).toEqual({ id: request.id, error: { code: -32601, message: "Method not found" } })

    const second = client.sendRequest("tools/call", { name: "server_request", arguments: { method: "ping" } })
    const ping = await client.waitFor((m) => m.method === "ping" && m.id !== request.id, "a second request")
    client.send({ jsonrpc: "2.0", id: ping.id, result: {} })
    expect(resultOf<CallResult>(await client.response(second)).structuredContent).toEqual({ id: ping.id, result: {} })
  })

  it("exit exits with the given code without answering", async (ctx) => {
    const client = start(ctx)
    const id = client.sendRequest("tools/call", { name: "exit", arguments: { code: 7 } })
    expect((await client.closed).code).toBe(7)
    expect(client.indexOf((m) => m.id === id)).toBe(-1)
  })

  it("sleep answers after ms, with two progress notifications first when asked", async (ctx) => {
    const client = start(ctx)
    const t0 = performance.now()
    const answer = await call(client, "sleep", { ms: 40 }, { _meta: { progressToken: 7 } })
    expect(performance.now() - t0).toBeGreaterThanOrEqual(35)
    expect(resultOf<CallResult>(answer).structuredContent).toEqual({ ms: 40 })
    expect(client.messages.filter(isNotification("notifications/progress")).map((m) => m.params)).toEqual([
      { progressToken: 7, progress: 1, total: 2, message: "step 1 of 2" },
      { progressToken: 7, progress: 2, total: 2, message: "step 2 of 2" }
    ])
  })

  it("bad control-tool arguments give an isError result", async (ctx) => {
    const client = start(ctx)
    for (
      const [name, args] of [["emit", { lines: [1] }], ["notify", { count: -1 }], ["sleep", {}], ["exit", {
        code: 999
      }]] as const
    ) {
      const result = resultOf<CallResult>(await call(client, name, args))
      expect(result.isError).toBe(true)
    }
  })
})
