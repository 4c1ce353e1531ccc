/**
 * The transport against the MCP reference servers from npm, run as real processes: each reaches ready on the
 * protocol revision it negotiates, lists the tools it really has (counts and names pinned from what these
 * versions send), keeps annotation hints tri-state, surfaces `instructions`, answers real calls, delivers its
 * notifications, and is gone — process, process group and temp dir — once its scope has closed.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { BaseEnvironment, Protocol, Tool } from "@mcp-fleet/transport"
import { Effect, Fiber, FileSystem, Option, Schema } from "effect"
import * as Path from "node:path"
import * as ReferenceServers from "../src/ReferenceServers.ts"
import type { Closed } from "./support.ts"
import { EVERYTHING_TOOLS, field, notifications, texts, waitUntil, withServer } from "./support.ts"

const LIST_CHANGED = "notifications/tools/list_changed"
const PROTOCOL_VERSION = "2025-11-25"
const decodeCallResult = Schema.decodeUnknownEffect(Protocol.CallToolResult)

/** Closing the scope left no process, no process group and no temp dir behind. */
const assertGone = (closed: Closed<unknown>) => {
  assert.isFalse(closed.processLeft, `pid ${closed.pid} is still running`)
  assert.isFalse(closed.groupLeft, `process group ${closed.pid} still has members`)
  assert.isFalse(closed.dirLeft, "the temp dir is still there")
}

/** The server sent only well-formed JSON-RPC lines. */
const assertCleanTraffic = (stats: { notJson: number; invalid: number; unknownId: number; oversize: number }) =>
  assert.deepStrictEqual(
    { notJson: stats.notJson, invalid: stats.invalid, unknownId: stats.unknownId, oversize: stats.oversize },
    { notJson: 0, invalid: 0, unknownId: 0, oversize: 0 }
  )

const toolNamed = (tools: ReadonlyArray<Tool.DiscoveredTool>, name: string): Tool.DiscoveredTool => {
  const tool = tools.find((t) => t.name === name)
  if (tool === undefined) throw new Error(`the server does not list ${name}`)
  return tool
}

const hints = (tool: Tool.DiscoveredTool) => ({
  readOnlyHint: Tool.hint(tool, "readOnlyHint"),
  destructiveHint: Tool.hint(tool, "destructiveHint"),
  idempotentHint: Tool.hint(tool, "idempotentHint"),
  openWorldHint: Tool.hint(tool, "openWorldHint")
})

const FILESYSTEM_TOOLS = [
  "read_file",
  "read_text_file",
  "read_media_file",
  "read_multiple_files",
  "write_file",
  "edit_file",
  "create_directory",
  "list_directory",
  "list_directory_with_sizes",
  "directory_tree",
  "move_file",
  "search_files",
  "get_file_info",
  "list_allowed_directories"
]

const MEMORY_TOOLS = [
  "create_entities",
  "create_relations",
  "add_observations",
  "delete_entities",
  "delete_observations",
  "delete_relations",
  "read_graph",
  "search_nodes",
  "open_nodes"
]

// Every test owns its server, temp dir and scope, so they run side by side.
describe.concurrent("reference servers through McpClient", () => {
  it("the helper resolves every server to its installed dist/index.js, run by this Node", () => {
    for (const name of ReferenceServers.names) {
      const { args, command } = ReferenceServers.command(name, "/tmp/x")
      assert.strictEqual(command, process.execPath)
      assert.strictEqual(args[0], Path.join(ReferenceServers.packageDir(name), "dist", "index.js"))
      assert.match(ReferenceServers.version(name), /^\d+\.\d+\.\d+/)
    }
  })

  describe("server-everything", () => {
    it.live("ready on 2025-11-25 with instructions; 13 tools in one page; list_changed after initialized; echo", () =>
      Effect.gen(function*() {
        const closed = yield* withServer("everything", ({ client }) =>
          Effect.gen(function*() {
            const session = yield* client.awaitReady
            const burst = yield* notifications(client, LIST_CHANGED, 1)
            const list = yield* client.listTools()
            // The burst precedes the tools/list answer on stdout, so it is complete once the list is back.
            const notificationsAfterList = client.stats().notifications
            const echo = yield* client.callTool("echo", { message: "héllo\nwörld \u2028 \"q\" 🎉" })
            const badArgs = yield* client.callTool("echo", {})
            const unknown = yield* client.callTool("no-such-tool", {})
            return { session, burst, list, notificationsAfterList, echo, badArgs, unknown, stats: client.stats() }
          }))
        const { badArgs, burst, echo, list, notificationsAfterList, session, stats, unknown } = closed.result

        assert.strictEqual(session.protocolVersion, PROTOCOL_VERSION)
        assert.strictEqual(session.serverInfo.name, "mcp-servers/everything")
        assert.deepStrictEqual(session.capabilities["tools"], { listChanged: true })
        assert.match(session.instructions ?? "", /^# Everything Server – Server Instructions\n/)
        assert.strictEqual(list.instructions, session.instructions)

        // With `capabilities: {}` one tool is registered after `initialized`: a burst of exactly one.
        assert.deepStrictEqual(burst, [{ method: LIST_CHANGED, params: undefined }])
        assert.strictEqual(notificationsAfterList, 1)

        assert.deepStrictEqual(list.tools.map((t) => t.name), EVERYTHING_TOOLS)
        assert.strictEqual(list.pages, 1)
        assert.deepStrictEqual(list.skipped, [])
        // Every hint sent explicitly, true and false alike.
        assert.deepStrictEqual(hints(toolNamed(list.tools, "echo")), {
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false
        })
        assert.deepStrictEqual(hints(toolNamed(list.tools, "gzip-file-as-resource")), {
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: true
        })
        assert.isFalse(Tool.mayWrite(toolNamed(list.tools, "echo")))
        assert.isTrue(Tool.mayWrite(toolNamed(list.tools, "toggle-simulated-logging")))
        // Fields newer than our schema (2025-11-25 `execution`) are kept as sent.
        assert.deepStrictEqual(toolNamed(list.tools, "simulate-research-query")["execution"], {
          taskSupport: "required"
        })
        assert.isDefined(toolNamed(list.tools, "get-structured-content").outputSchema)
        assert.isUndefined(toolNamed(list.tools, "echo").outputSchema)

        assert.deepStrictEqual(texts(echo), ["Echo: héllo\nwörld \u2028 \"q\" 🎉"])
        assert.isUndefined(echo.isError)
        // Bad arguments and unknown tools come back as `isError` results, not JSON-RPC errors.
        assert.isTrue(badArgs.isError)
        assert.match(texts(badArgs)[0] ?? "", /Input validation error/)
        assert.isTrue(unknown.isError)
        assert.match(texts(unknown)[0] ?? "", /Tool no-such-tool not found/)

        assertCleanTraffic(stats)
        assert.strictEqual(stats.serverRequests, 0)
        // It exits on its own once its stdin is closed.
        assert.deepStrictEqual(closed.exit, { code: 0, signal: null })
        assertGone(closed)
      }).pipe(Effect.provide(NodeServices.layer)))

    it.live("trigger-long-running-operation reports progress on client.notifications before its result", () =>
      Effect.gen(function*() {
        const closed = yield* withServer("everything", ({ client }) =>
          Effect.gen(function*() {
            yield* client.awaitReady
            // callTool has no progress option; `request` goes through the same request path.
            const raw = yield* client.request("tools/call", {
              name: "trigger-long-running-operation",
              arguments: { duration: 0.3, steps: 3 },
              _meta: { progressToken: "interop-progress" }
            })
            // The reader publishes notifications in stdout order: the three progress ones (and the earlier
            // list_changed) were in before the answer.
            const notificationsAtResult = client.stats().notifications
            const result = yield* decodeCallResult(raw)
            // Everything the server sent so far, replayed in order, each once.
            const sent = yield* notifications(client, undefined, 4)
            return { result, sent, notificationsAtResult }
          }))
        const { notificationsAtResult, result, sent } = closed.result
        assert.strictEqual(notificationsAtResult, 4)
        assert.deepStrictEqual(sent, [
          { method: LIST_CHANGED, params: undefined },
          ...[1, 2, 3].map((progress) => ({
            method: "notifications/progress",
            params: { progress, total: 3, progressToken: "interop-progress" }
          }))
        ])
        assert.deepStrictEqual(texts(result), ["Long running operation completed. Duration: 0.3 seconds, Steps: 3."])
        assertGone(closed)
      }).pipe(Effect.provide(NodeServices.layer)))

    it.live("a call that times out is cancelled: the server drops its answer, keeps its progress, and serves on", () =>
      Effect.gen(function*() {
        const closed = yield* withServer("everything", ({ client }) =>
          Effect.gen(function*() {
            yield* client.awaitReady
            const timedOut = yield* client.request("tools/call", {
              name: "trigger-long-running-operation",
              arguments: { duration: 1, steps: 4 },
              _meta: { progressToken: 7 }
            }, { timeout: "150 millis" }).pipe(Effect.flip)
            // The operation runs to its end anyway (its last progress), where its answer would have followed.
            const progress = yield* notifications(client, "notifications/progress", 4)
            yield* client.ping()
            return { timedOut, progress, stats: client.stats() }
          }))
        const { progress, stats, timedOut } = closed.result
        assert.strictEqual(timedOut._tag, "RequestTimeout")
        assert.deepStrictEqual(progress.map((n) => field(n.params, "progress")), [1, 2, 3, 4])
        // The server honoured our notifications/cancelled: no late answer to the abandoned id.
        assert.strictEqual(stats.unknownId, 0)
        assert.strictEqual(stats.pending, 0)
        assertCleanTraffic(stats)
        assertGone(closed)
      }).pipe(Effect.provide(NodeServices.layer)))

    it.live("32 concurrent calls pair with their own answers; forceClose kills at once and reaps the child", () =>
      Effect.gen(function*() {
        const closed = yield* withServer("everything", ({ client }) =>
          Effect.gen(function*() {
            yield* client.awaitReady
            const sums = yield* Effect.forEach(
              Array.from({ length: 32 }, (_, i) => i),
              (i) => client.callTool("get-sum", { a: i, b: 1000 * i }),
              { concurrency: "unbounded" }
            )
            const stats = client.stats()
            yield* client.forceClose
            return { sums, stats, alive: client.isAlive(), exit: Option.getOrUndefined(client.exitInfo()) }
          }))
        const { alive, exit, stats, sums } = closed.result
        sums.forEach((result, i) =>
          assert.deepStrictEqual(texts(result), [`The sum of ${i} and ${1000 * i} is ${1001 * i}.`])
        )
        assertCleanTraffic(stats)
        assert.isFalse(alive)
        assert.deepStrictEqual(exit, { code: null, signal: "SIGKILL" })
        assertGone(closed)
      }).pipe(Effect.provide(NodeServices.layer)))

    it.live("closing the scope mid-call fails the call with ClientClosed and ends the busy server by SIGTERM", () =>
      Effect.gen(function*() {
        const closed = yield* withServer(
          "everything",
          ({ client }) =>
            Effect.gen(function*() {
              yield* client.awaitReady
              const call = yield* client.callTool("trigger-long-running-operation", { duration: 10, steps: 5 }).pipe(
                Effect.flip,
                Effect.forkChild({ startImmediately: true })
              )
              yield* waitUntil(() => client.stats().pending === 1, "the call to be in flight")
              return call
            }),
          { client: { shutdownGrace: 200 } }
        )
        const error = yield* Fiber.join(closed.result)
        assert.strictEqual(error._tag, "ClientClosed")
        // Its step timer keeps it running after stdin closes: the grace ends in SIGTERM.
        assert.deepStrictEqual(closed.exit, { code: null, signal: "SIGTERM" })
        assertGone(closed)
      }).pipe(Effect.provide(NodeServices.layer)))

    it.live("the server sees only the base environment plus what the caller passed (get-env)", () =>
      Effect.gen(function*() {
        const closed = yield* withServer(
          "everything",
          ({ client }) =>
            Effect.gen(function*() {
              yield* client.awaitReady
              return yield* client.callTool("get-env", {})
            }),
          { client: { env: { INTEROP_MARKER: "from the caller" } } }
        )
        const env: unknown = JSON.parse(texts(closed.result)[0] ?? "null")
        assert.strictEqual(field(env, "INTEROP_MARKER"), "from the caller")
        assert.isDefined(process.env["VITEST"], "the parent has variables of its own")
        assert.isUndefined(field(env, "VITEST"), "the parent's environment is not inherited")
        const allowed = [...Object.keys(BaseEnvironment.pick(process.env)), "INTEROP_MARKER"]
        assert.deepStrictEqual(Object.keys(env ?? {}).filter((key) => !allowed.includes(key)), [])
        assert.strictEqual(field(env, "PATH"), process.env["PATH"], "the base environment the test provided")
        assertGone(closed)
      }).pipe(Effect.provide([NodeServices.layer, BaseEnvironment.layer(process.env)])))

    it.live("roots, sampling, elicitation declared: four list_changed, 16 tools, roots/list (id 0) answered", () =>
      Effect.gen(function*() {
        const closed = yield* withServer(
          "everything",
          ({ client }) =>
            Effect.gen(function*() {
              yield* client.awaitReady
              const burst = yield* notifications(client, LIST_CHANGED, 4)
              const list = yield* client.listTools()
              const notificationsAfterList = client.stats().notifications
              // ~350 ms after `initialized` the server asks for roots, with request id 0.
              yield* waitUntil(
                () => client.stderrTail().some((line) => line.includes("Failed to request roots")),
                "the server's roots/list to be answered"
              )
              return { burst, list, notificationsAfterList, stats: client.stats(), stderr: client.stderrTail() }
            }),
          { client: { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} } } }
        )
        const { burst, list, notificationsAfterList, stats, stderr } = closed.result
        assert.strictEqual(burst.length, 4)
        assert.strictEqual(notificationsAfterList, 4)
        assert.deepStrictEqual(list.tools.map((t) => t.name), [
          ...EVERYTHING_TOOLS.slice(0, -1),
          "get-roots-list",
          "trigger-elicitation-request",
          "trigger-sampling-request",
          "simulate-research-query"
        ])
        assert.strictEqual(stats.serverRequests, 1)
        // This client serves no roots: it answers -32601, and the server goes on without waiting 60 s.
        assert.isTrue(
          stderr.some((line) => line.includes("MCP error -32601: Method not found: roots/list")),
          stderr.join("\n")
        )
        assertCleanTraffic(stats)
        assert.deepStrictEqual(closed.exit, { code: 0, signal: null })
        assertGone(closed)
      }).pipe(Effect.provide(NodeServices.layer)))

    it.live("a log message arrives on client.notifications; a server kept alive by a timer is ended by SIGTERM", () =>
      Effect.gen(function*() {
        const closed = yield* withServer(
          "everything",
          ({ client }) =>
            Effect.gen(function*() {
              yield* client.awaitReady
              const toggled = yield* client.callTool("toggle-simulated-logging", {})
              const [message] = yield* notifications(client, "notifications/message", 1)
              return { toggled, message }
            }),
          { client: { shutdownGrace: 200 } }
        )
        const { message, toggled } = closed.result
        assert.match(texts(toggled)[0] ?? "", /Started simulated, random-leveled logging/)
        const level = field(message?.params, "level")
        assert.oneOf(level, ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"])
        assert.match(String(field(message?.params, "data")), /message/)
        // Its 5 s logging interval keeps it running after stdin closes: the grace ends in SIGTERM.
        assert.deepStrictEqual(closed.exit, { code: null, signal: "SIGTERM" })
        assertGone(closed)
      }).pipe(Effect.provide(NodeServices.layer)))
  })

  describe("server-filesystem", () => {
    it.live("14 tools with partial hints kept tri-state, no instructions; reads, writes and refuses in its dir", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const closed = yield* withServer(
          "filesystem",
          ({ client, dir }) =>
            Effect.gen(function*() {
              const session = yield* client.awaitReady
              const list = yield* client.listTools()
              const read = yield* client.callTool("read_text_file", { path: Path.join(dir, "hello.txt") })
              const listing = yield* client.callTool("list_directory", { path: dir })
              const write = yield* client.callTool("write_file", {
                path: Path.join(dir, "written.txt"),
                content: "written by the server\n"
              })
              const written = yield* fs.readFileString(Path.join(dir, "written.txt"))
              const outside = yield* client.callTool("read_text_file", { path: Path.dirname(dir) })
              return { session, list, read, listing, write, written, outside, dir, stats: client.stats() }
            }),
          {
            prepare: (dir) =>
              Effect.andThen(
                fs.writeFileString(Path.join(dir, "hello.txt"), "hello from mcp-fleet\n"),
                fs.makeDirectory(Path.join(dir, "notes"))
              )
          }
        )
        const { dir, list, listing, outside, read, session, stats, write, written } = closed.result

        assert.strictEqual(session.protocolVersion, PROTOCOL_VERSION)
        assert.strictEqual(session.serverInfo.name, "secure-filesystem-server")
        assert.isUndefined(session.instructions)
        assert.isUndefined(list.instructions)

        assert.deepStrictEqual(list.tools.map((t) => t.name), FILESYSTEM_TOOLS)
        assert.strictEqual(list.pages, 1)
        assert.isTrue(list.tools.every((t) => t.outputSchema !== undefined), "every tool has an outputSchema")
        // Read tools send only readOnlyHint and openWorldHint: the other two stay absent, not false.
        assert.deepStrictEqual(hints(toolNamed(list.tools, "read_text_file")), {
          readOnlyHint: true,
          destructiveHint: "absent",
          idempotentHint: "absent",
          openWorldHint: false
        })
        assert.notProperty(toolNamed(list.tools, "read_text_file").annotations ?? {}, "destructiveHint")
        assert.deepStrictEqual(hints(toolNamed(list.tools, "write_file")), {
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: true,
          openWorldHint: false
        })
        assert.deepStrictEqual(hints(toolNamed(list.tools, "edit_file")), {
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: false,
          openWorldHint: false
        })
        assert.strictEqual(Tool.hint(toolNamed(list.tools, "create_directory"), "destructiveHint"), false)
        assert.isFalse(Tool.mayWrite(toolNamed(list.tools, "list_directory")))
        assert.isTrue(Tool.mayWrite(toolNamed(list.tools, "move_file")))

        assert.deepStrictEqual(texts(read), ["hello from mcp-fleet\n"])
        assert.deepStrictEqual(read.structuredContent, { content: "hello from mcp-fleet\n" })
        assert.deepStrictEqual(texts(listing), ["[FILE] hello.txt\n[DIR] notes"])
        assert.isUndefined(write.isError)
        assert.strictEqual(written, "written by the server\n")
        assert.isTrue(outside.isError)
        assert.match(texts(outside)[0] ?? "", /^Access denied - path outside allowed directories/)
        assert.include(texts(outside)[0] ?? "", dir)

        assertCleanTraffic(stats)
        assert.deepStrictEqual(closed.exit, { code: 0, signal: null })
        assertGone(closed)
      }).pipe(Effect.provide(NodeServices.layer)))
    it.live("a 1 MiB multibyte file arrives intact in one multi-chunk line; a 3 MiB one is MessageTooLarge", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        // 4 bytes, 2 bytes and 1 byte per character: chunk boundaries fall inside characters.
        const big = "🎉é-".repeat(150_000) + "\n"
        const huge = "x".repeat(3 * 1024 * 1024)
        const closed = yield* withServer(
          "filesystem",
          ({ client, dir }) =>
            Effect.gen(function*() {
              yield* client.awaitReady
              const read = yield* client.callTool("read_text_file", { path: Path.join(dir, "big.txt") })
              // Its answer (text + structuredContent, ~6 MiB) passes the 4 MiB default cap.
              const tooLarge = yield* client.callTool("read_text_file", { path: Path.join(dir, "huge.txt") }, {
                timeout: "10 seconds"
              }).pipe(Effect.flip)
              yield* client.ping()
              return { read, tooLarge, alive: client.isAlive(), stats: client.stats() }
            }),
          {
            prepare: (dir) =>
              Effect.andThen(
                fs.writeFileString(Path.join(dir, "big.txt"), big),
                fs.writeFileString(Path.join(dir, "huge.txt"), huge)
              )
          }
        )
        const { alive, read, stats, tooLarge } = closed.result
        assert.strictEqual(texts(read)[0]?.length, big.length)
        assert.isTrue(texts(read)[0] === big, "the text came back byte for byte")
        assert.strictEqual(tooLarge._tag, "MessageTooLarge")
        assert.isTrue(alive)
        assert.strictEqual(stats.oversize, 1)
        assert.strictEqual(stats.invalidUtf8, 0)
        assert.strictEqual(stats.pending, 0)
        assertGone(closed)
      }).pipe(Effect.provide(NodeServices.layer)))
  })

  describe("server-memory", () => {
    it.live("9 tools; entities created through a call land in MEMORY_FILE_PATH and read back", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const entity = { name: "Ada", entityType: "person", observations: ["wrote the first program"] }
        const closed = yield* withServer("memory", ({ client, dir }) =>
          Effect.gen(function*() {
            const session = yield* client.awaitReady
            const list = yield* client.listTools()
            const created = yield* client.callTool("create_entities", { entities: [entity] })
            const graph = yield* client.callTool("read_graph", {})
            const file = yield* fs.readFileString(ReferenceServers.memoryFile(dir))
            return { session, list, created, graph, file, stats: client.stats() }
          }))
        const { created, file, graph, list, session, stats } = closed.result

        assert.strictEqual(session.protocolVersion, PROTOCOL_VERSION)
        assert.strictEqual(session.serverInfo.name, "memory-server")
        assert.isUndefined(session.instructions)
        assert.deepStrictEqual(list.tools.map((t) => t.name), MEMORY_TOOLS)
        assert.deepStrictEqual(hints(toolNamed(list.tools, "delete_entities")), {
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: true,
          openWorldHint: false
        })
        assert.strictEqual(Tool.hint(toolNamed(list.tools, "read_graph"), "readOnlyHint"), true)

        assert.deepStrictEqual(created.structuredContent, { entities: [entity] })
        assert.deepStrictEqual(graph.structuredContent, { entities: [entity], relations: [] })
        assert.deepStrictEqual(JSON.parse(texts(graph)[0] ?? "null"), { entities: [entity], relations: [] })
        assert.deepStrictEqual(file.trim().split("\n").map((line) => JSON.parse(line)), [{ type: "entity", ...entity }])

        assertCleanTraffic(stats)
        assert.deepStrictEqual(closed.exit, { code: 0, signal: null })
        assertGone(closed)
      }).pipe(Effect.provide(NodeServices.layer)))
  })

  describe("server-sequential-thinking", () => {
    it.live("1 tool; two thoughts are counted in order; thought logging stays off", () =>
      Effect.gen(function*() {
        const thought = (thoughtNumber: number) => ({
          thought: `interop thought number ${thoughtNumber}`,
          thoughtNumber,
          totalThoughts: 2,
          nextThoughtNeeded: thoughtNumber < 2
        })
        const closed = yield* withServer("sequential-thinking", ({ client }) =>
          Effect.gen(function*() {
            const session = yield* client.awaitReady
            const list = yield* client.listTools()
            const first = yield* client.callTool("sequentialthinking", thought(1))
            const second = yield* client.callTool("sequentialthinking", thought(2))
            return { session, list, first, second, stats: client.stats(), stderr: client.stderrTail() }
          }))
        const { first, list, second, session, stats, stderr } = closed.result
        // DISABLE_THOUGHT_LOGGING=true: only the start banner on stderr, no thought boxes.
        assert.deepStrictEqual(stderr, ["Sequential Thinking MCP Server running on stdio"])

        assert.strictEqual(session.protocolVersion, PROTOCOL_VERSION)
        assert.strictEqual(session.serverInfo.name, "sequential-thinking-server")
        assert.deepStrictEqual(list.tools.map((t) => t.name), ["sequentialthinking"])
        assert.deepStrictEqual(hints(toolNamed(list.tools, "sequentialthinking")), {
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false
        })
        assert.deepStrictEqual(first.structuredContent, {
          thoughtNumber: 1,
          totalThoughts: 2,
          nextThoughtNeeded: true,
          branches: [],
          thoughtHistoryLength: 1
        })
        assert.deepStrictEqual(second.structuredContent, {
          thoughtNumber: 2,
          totalThoughts: 2,
          nextThoughtNeeded: false,
          branches: [],
          thoughtHistoryLength: 2
        })
        assert.deepStrictEqual(JSON.parse(texts(second)[0] ?? "null"), second.structuredContent)

        assertCleanTraffic(stats)
        assert.deepStrictEqual(closed.exit, { code: 0, signal: null })
        assertGone(closed)
      }).pipe(Effect.provide(NodeServices.layer)))
  })
})
