#!/usr/bin/env node
// A fast, hand-written echo MCP server for the benchmark harness (no SDK inside).
//
// Speaks newline-delimited JSON-RPC 2.0 on stdin/stdout:
//   initialize, notifications/initialized, ping, tools/list (paginated), tools/call echo, stats.
//
// Arguments (all optional):
//   tools=N          number of tools it advertises (default 1; the first one is always `echo`)
//   page-size=M      tools per tools/list page (default 100)
//   stats-file=PATH  at exit, write one JSON line with its own CPU usage to PATH
//   delay-init=MS    answer `initialize` only after MS milliseconds (a slow-starting server; default 0)
//   output-schemas   every tool declares an `outputSchema` (as typed tools of 2025-06-18 and later do), and `echo`
//                    answers with `structuredContent: { payload }` beside its text
//
// `tools/call` of `echo` with `{ payload: string }` answers `{ content: [{ type: "text", text: payload }] }`.
// A `stats` request answers the same JSON that is printed at exit. At exit (stdin closed, SIGTERM or SIGINT)
// the server prints `echo-server stats {...}` on stderr: CPU time since its first tools/call, the number of
// calls, and the wall time from the first call to the last, so a report can show it is not the bottleneck.
//
// Speed matters more than generality: it parses each line with JSON.parse, builds replies with
// JSON.stringify, and writes all replies produced from one stdin chunk with a single write.
import { writeFileSync } from "node:fs"

const SUPPORTED_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
const LATEST_VERSION = SUPPORTED_VERSIONS[0]

const options = { tools: 1, pageSize: 100, statsFile: undefined, delayInitMs: 0, outputSchemas: false }
for (const arg of process.argv.slice(2)) {
  const eq = arg.indexOf("=")
  const key = eq < 0 ? arg : arg.slice(0, eq)
  const value = eq < 0 ? "" : arg.slice(eq + 1)
  if (key === "tools") options.tools = positiveInt(key, value)
  else if (key === "page-size") options.pageSize = positiveInt(key, value)
  else if (key === "stats-file") options.statsFile = value
  else if (key === "delay-init") options.delayInitMs = positiveInt(key, value)
  else if (key === "output-schemas" && value === "") options.outputSchemas = true
  else fatal(`unknown argument ${JSON.stringify(arg)}`)
}

function positiveInt(key, value) {
  const n = Number(value)
  if (!Number.isSafeInteger(n) || n < 1) fatal(`${key} must be a positive integer, got ${JSON.stringify(value)}`)
  return n
}

function fatal(message) {
  process.stderr.write(`echo-server: ${message}\n`)
  process.exit(2)
}

/** The advertised tools: `echo` first, then filler tools shaped like real ones (title, description, schema, hints). */
const tools = []
for (let i = 0; i < options.tools; i++) {
  const name = i === 0 ? "echo" : `tool_${String(i).padStart(4, "0")}`
  tools.push({
    name,
    title: i === 0 ? "Echo" : `Tool ${i}`,
    description: i === 0
      ? "Returns its payload argument unchanged as one text content block."
      : `Filler tool number ${i}: looks like a real tool descriptor so that discovery cost is realistic.`,
    inputSchema: {
      type: "object",
      properties: {
        payload: { type: "string", description: "Text to send back." },
        repeat: { type: "integer", minimum: 1, maximum: 10, description: "Unused; makes the schema realistic." }
      },
      required: ["payload"]
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    ...(options.outputSchemas
      ? {
        outputSchema: i === 0
          ? { type: "object", properties: { payload: { type: "string" } }, required: ["payload"] }
          : {
            type: "object",
            properties: {
              status: { type: "string", enum: ["ok", "partial", "failed"] },
              items: { type: "array", items: { type: "object", properties: { id: { type: "integer" } } } },
              elapsedMs: { type: "number", minimum: 0 }
            },
            required: ["status"],
            additionalProperties: false
          }
      }
      : {})
  })
}

let calls = 0
let lists = 0
let firstCallCpu
let firstCallAt
let lastCallAt = 0

function stats() {
  const cpu = process.cpuUsage(firstCallCpu)
  const cpuMicros = cpu.user + cpu.system
  return {
    pid: process.pid,
    calls,
    lists,
    cpuMicrosSinceFirstCall: firstCallCpu === undefined ? 0 : cpuMicros,
    wallMillisFirstToLastCall: firstCallAt === undefined ? 0 : lastCallAt - firstCallAt,
    cpuMicrosTotal: (() => {
      const total = process.cpuUsage()
      return total.user + total.system
    })()
  }
}

function result(id, value) {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(value)}}\n`
}

function error(id, code, message) {
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }) + "\n"
}

function handle(line) {
  let msg
  try {
    msg = JSON.parse(line)
  } catch {
    return error(null, -32700, "Parse error")
  }
  if (msg === null || typeof msg !== "object" || typeof msg.method !== "string") {
    // A response from the client (we never send requests) or junk: ignore.
    return ""
  }
  const id = msg.id
  const isRequest = id !== undefined && id !== null
  switch (msg.method) {
    case "tools/call": {
      const now = performance.now()
      if (firstCallCpu === undefined) {
        firstCallCpu = process.cpuUsage()
        firstCallAt = now
      }
      lastCallAt = now
      calls++
      const params = msg.params
      if (params?.name !== "echo") return error(id, -32602, `Unknown tool: ${String(params?.name)}`)
      const payload = params.arguments?.payload
      if (typeof payload !== "string") {
        return result(id, { content: [{ type: "text", text: "payload must be a string" }], isError: true })
      }
      const text = JSON.stringify(payload)
      return options.outputSchemas
        ? `{"jsonrpc":"2.0","id":${
          JSON.stringify(id)
        },"result":{"content":[{"type":"text","text":${text}}],"structuredContent":{"payload":${text}}}}\n`
        : `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":${text}}]}}\n`
    }
    case "tools/list": {
      lists++
      const cursor = msg.params?.cursor
      const start = cursor === undefined ? 0 : Number(cursor)
      if (!Number.isSafeInteger(start) || start < 0 || start > tools.length) {
        return error(id, -32602, `Invalid cursor: ${JSON.stringify(cursor)}`)
      }
      const end = Math.min(start + options.pageSize, tools.length)
      const page = { tools: tools.slice(start, end) }
      if (end < tools.length) page.nextCursor = String(end)
      return result(id, page)
    }
    case "initialize": {
      const requested = msg.params?.protocolVersion
      const answer = result(id, {
        protocolVersion: SUPPORTED_VERSIONS.includes(requested) ? requested : LATEST_VERSION,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: "mcp-fleet-bench-echo", version: "0.0.0" }
      })
      if (options.delayInitMs === 0) return answer
      setTimeout(() => process.stdout.write(answer), options.delayInitMs)
      return ""
    }
    case "ping":
      return result(id, {})
    case "stats":
      return result(id, stats())
    default:
      return isRequest ? error(id, -32601, `Method not found: ${msg.method}`) : ""
  }
}

// Split stdin on whole chunks: keep the unfinished tail as parts, join only when a newline arrives.
let pending = []
process.stdin.setEncoding("utf8")
process.stdin.on("data", (chunk) => {
  let out = ""
  let start = 0
  let nl = chunk.indexOf("\n")
  if (nl < 0) {
    pending.push(chunk)
    return
  }
  if (pending.length > 0) {
    pending.push(chunk.slice(0, nl))
    const line = pending.join("")
    pending = []
    if (line.trim() !== "") out += handle(line)
    start = nl + 1
    nl = chunk.indexOf("\n", start)
  }
  while (nl >= 0) {
    if (nl > start) out += handle(chunk.slice(start, nl))
    start = nl + 1
    nl = chunk.indexOf("\n", start)
  }
  if (start < chunk.length) pending.push(chunk.slice(start))
  if (out !== "") process.stdout.write(out)
})

let exiting = false
function exit(code) {
  if (exiting) return
  exiting = true
  const report = JSON.stringify(stats())
  process.stderr.write(`echo-server stats ${report}\n`)
  if (options.statsFile !== undefined) writeFileSync(options.statsFile, report + "\n")
  process.exit(code)
}
process.stdin.on("end", () => exit(0))
process.on("SIGTERM", () => exit(0))
process.on("SIGINT", () => exit(0))
process.stdout.on("error", () => exit(0))
