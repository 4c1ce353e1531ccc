#!/usr/bin/env node
// A fake MCP server for tests: newline-delimited JSON-RPC 2.0 over stdio, plain JavaScript, no
// dependencies. Behaviour is selected by tokens given as arguments or in FAKE_MCP_MODE (space
// separated); see ../README.md and vocabulary.mjs for every mode, option and test-control tool.
//
//   node server.mjs tools-list-paged tools=50 page-size=10
//   FAKE_MCP_MODE="slow delay=50" node server.mjs
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { createModern } from "./modern.mjs"
import * as Tasks from "./tasks.mjs"
import { modeEnvVar, modes as MODE_NAMES, numberOptions, stringOptions } from "./vocabulary.mjs"

const SERVER_PATH = fileURLToPath(import.meta.url)

// ---------------------------------------------------------------------------------------------
// Grandchild: a long-lived process that holds the inherited stdout, like the real server behind an
// `npx` wrapper. It does nothing; it ends when its process group is killed (or after an hour, as a
// safety net so a forgotten one does not live forever).
if (process.argv.includes("--grandchild")) {
  // `--ignore-sigterm`: as a daemon that only SIGKILL ends (the `setsid-grandchild` of an `ignore-sigterm` server).
  if (process.argv.includes("--ignore-sigterm")) process.on("SIGTERM", () => {})
  setTimeout(() => process.exit(0), 60 * 60 * 1000)
} else {
  main()
}

function main() {
  const SUPPORTED_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
  const LATEST_VERSION = "2025-11-25"

  const FLAG_MODES = new Set(MODE_NAMES)
  // token → { default, min?, max? } (all numeric options are non-negative integers), and the string tokens.
  const NUMBER_OPTIONS = Object.fromEntries(Object.values(numberOptions).map((o) => [o.token, o]))
  const STRING_OPTIONS = new Set(Object.values(stringOptions).map((o) => o.token))

  // ---------------------------------------------------------------------------------------------
  // Tokens
  const envTokens = (process.env[modeEnvVar] ?? "").split(/\s+/).filter((t) => t.length > 0)
  const tokens = [...envTokens, ...process.argv.slice(2)]
  const modes = new Set()
  const opts = Object.fromEntries([
    ...Object.entries(NUMBER_OPTIONS).map(([token, o]) => [token, o.default]),
    ...[...STRING_OPTIONS].map((token) => [token, undefined])
  ])
  const seen = new Set()
  const tokenError = parseTokens()
  if (tokenError !== undefined) {
    // A bad token is a usage error: say which one on stderr and exit with code 2.
    process.stderr.write(
      `fake-mcp-server: ${tokenError}; see the README of @mcp-fleet/fake-server\n`,
      () => process.exit(2)
    )
    return
  }
  function parseTokens() {
    for (const token of tokens) {
      const eq = token.indexOf("=")
      if (eq === -1) {
        if (!FLAG_MODES.has(token)) return `unknown mode "${token}"`
        modes.add(token)
        continue
      }
      const key = token.slice(0, eq)
      const value = token.slice(eq + 1)
      if (Object.hasOwn(NUMBER_OPTIONS, key)) {
        if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
          return `option "${token}" needs a non-negative integer value`
        }
        const { min, max } = NUMBER_OPTIONS[key]
        if (min !== undefined && Number(value) < min) return `option "${token}" needs a value of at least ${min}`
        if (max !== undefined && Number(value) > max) return `option "${token}" needs a value of at most ${max}`
        opts[key] = Number(value)
      } else if (STRING_OPTIONS.has(key)) {
        if (value.length === 0) return `option "${token}" needs a value`
        opts[key] = value
      } else {
        return `unknown option "${key}" in "${token}"`
      }
      seen.add(key)
    }
    return undefined
  }
  const has = (mode) => modes.has(mode)
  const crashAfter = seen.has("crash-after") ? opts["crash-after"] : undefined
  const modeLabel = tokens.filter((t) => !t.startsWith("run-id=")).join(",") || "plain"

  // ---------------------------------------------------------------------------------------------
  // Output: every frame goes through one buffer that is flushed once per tick, so a burst of answers
  // to one input chunk becomes one write. Raw bytes (emit) keep their place in the order.
  let outQueue = []
  let flushScheduled = false
  let exiting = false
  let floodStopped = false
  const stdout = process.stdout
  stdout.on("error", () => {
    if (!has("ignore-sigterm")) process.exit(opts["exit-code"])
  })

  const writeRaw = (chunk) => {
    if (exiting) return
    outQueue.push(chunk)
    if (!flushScheduled) {
      flushScheduled = true
      process.nextTick(flush)
    }
  }
  const send = (message) => writeRaw(JSON.stringify(message) + "\n")
  function flush() {
    flushScheduled = false
    if (outQueue.length === 0) return
    const chunks = outQueue
    outQueue = []
    if (chunks.every((c) => typeof c === "string")) stdout.write(chunks.join(""))
    else stdout.write(Buffer.concat(chunks.map((c) => (typeof c === "string" ? Buffer.from(c, "utf8") : c))))
  }
  const log = (line) => process.stderr.write(`fake-mcp-server: ${line}\n`)
  // leak-env: the server's whole environment on one line, for a server that leaks it everywhere.
  const leakedEnv = () =>
    Object.entries(process.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join(" ")
  // A peer that closed our stderr must not kill us (EPIPE): stderr is only diagnostics.
  process.stderr.on("error", () => {})

  // Exits once stdout and stderr have been flushed.
  function exitWith(code, lastLine) {
    if (exiting) return
    flush()
    exiting = true
    floodStopped = true
    let waiting = 2
    const done = () => {
      waiting -= 1
      if (waiting === 0) process.exit(code)
    }
    stdout.write("", done)
    const last = lastLine !== undefined && has("leak-env") ? `${lastLine} (environment ${leakedEnv()})` : lastLine
    process.stderr.write(last === undefined ? "" : `fake-mcp-server: ${last}\n`, done)
    // A peer that stopped reading would keep the flush from finishing: exit anyway after 2 s.
    setTimeout(() => process.exit(code), 2000).unref()
  }

  // ---------------------------------------------------------------------------------------------
  // Pending requests: id → the request's progress token (or undefined). An answer is written only
  // while its id is still in flight, so a `notifications/cancelled` drops it.
  const inFlight = new Map()
  // modern: the 2026-07-28 era (modern.mjs); every result is decorated for the method it answers.
  const modern = has("modern")
    ? createModern({ has, ttl: opts.ttl, serverInfo: { name: "fake-mcp-server", version: "1.0.0" } })
    : undefined
  const methods = new Map() // id → method, for the modern era's result decoration
  const answer = (id, result, delay = 0) =>
    settle(id, {
      jsonrpc: "2.0",
      id,
      result: modern === undefined ? result : modern.decorate(methods.get(id), result)
    }, delay)
  const fail = (id, code, message, delay = 0) => settle(id, { jsonrpc: "2.0", id, error: { code, message } }, delay)
  const failWith = (id, error) => settle(id, { jsonrpc: "2.0", id, error }, 0)
  // tasks: the 2025-11-25 task tool `research` and the tasks/* methods (tasks.mjs).
  const tasks = has("tasks") ? Tasks.make({ send, answer, fail, interval: opts.delay }) : undefined
  // A delayed answer (slow mode, a delay option, the sleep tool) to a request that carries
  // params._meta.progressToken is preceded by two notifications/progress: one at once, one just
  // before the answer.
  function settle(id, message, delay) {
    const total = delay + (has("slow") ? opts.delay : 0)
    if (total === 0) return deliver(id, message)
    const token = inFlight.get(id)
    if (token !== undefined) progress(token, 1, 2)
    setTimeout(() => {
      if (token !== undefined && inFlight.has(id)) progress(token, 2, 2)
      deliver(id, message)
    }, total)
  }
  function deliver(id, message) {
    if (!inFlight.has(id)) return
    inFlight.delete(id)
    methods.delete(id)
    send(message)
  }
  const progress = (token, step, total) =>
    send({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: token, progress: step, total, message: `step ${step} of ${total}` }
    })

  // ---------------------------------------------------------------------------------------------
  // Tools
  let generation = 0
  const objectSchema = (properties = {}, required) => ({
    type: "object",
    properties,
    ...(required === undefined ? {} : { required })
  })
  const CONTROL_TOOLS = [
    {
      name: "change_tools",
      description:
        "Test control: changes the tool set and emits notifications/tools/list_changed `burst` times (modern: `list` picks tools, prompts or resources).",
      inputSchema: objectSchema({
        burst: { type: "integer", minimum: 0 },
        list: { type: "string", enum: ["tools", "prompts", "resources"] }
      })
    },
    {
      name: "emit",
      description: "Test control: writes the given lines and/or base64-decoded bytes verbatim to stdout.",
      inputSchema: objectSchema({ lines: { type: "array", items: { type: "string" } }, base64: { type: "string" } })
    },
    {
      name: "notify",
      description: "Test control: emits `count` notifications (default notifications/message).",
      inputSchema: objectSchema({
        count: { type: "integer", minimum: 0 },
        method: { type: "string" },
        params: { type: "object" }
      })
    },
    {
      name: "server_request",
      description: "Test control: sends a request to the client and returns the client's reply.",
      inputSchema: objectSchema({ method: { type: "string" }, params: { type: "object" } }, ["method"])
    },
    {
      name: "exit",
      description: "Test control: exits the server with `code` (default: the exit-code option).",
      inputSchema: objectSchema({ code: { type: "integer", minimum: 0 } })
    },
    {
      name: "sleep",
      description: "Test control: answers after `ms` milliseconds.",
      inputSchema: objectSchema({ ms: { type: "integer", minimum: 0 } }, ["ms"])
    }
  ]
  const ECHO_TOOL = {
    name: "echo",
    description: "Returns its arguments as text and as structuredContent.",
    inputSchema: { type: "object", additionalProperties: true }
  }
  const ANNOTATED_TOOLS = [
    {
      name: "hint_read_only",
      description: "annotations.readOnlyHint is true.",
      inputSchema: objectSchema(),
      annotations: { title: "Read only", readOnlyHint: true, idempotentHint: true, openWorldHint: false }
    },
    {
      name: "hint_writes",
      description: "annotations.readOnlyHint is false.",
      inputSchema: objectSchema(),
      annotations: { readOnlyHint: false, destructiveHint: true }
    },
    {
      name: "hint_absent",
      description: "annotations has no readOnlyHint.",
      inputSchema: objectSchema(),
      annotations: { destructiveHint: false, openWorldHint: true }
    }
  ]
  const synthetic = (i) => ({
    name: `tool_${i}`,
    description: `Synthetic tool number ${i}.`,
    inputSchema: objectSchema({ value: { type: "string" } })
  })
  const generationTool = () => ({
    name: `generation_${generation}`,
    description: `Present after the tool set changed ${generation} time(s).`,
    inputSchema: objectSchema()
  })
  function listedTools() {
    if (has("empty-list")) return []
    const tools = [ECHO_TOOL]
    for (let i = 1; i <= opts.tools; i++) tools.push(synthetic(i))
    if (has("annotations")) tools.push(...ANNOTATED_TOOLS)
    if (generation > 0) tools.push(generationTool())
    tools.push(...CONTROL_TOOLS)
    if (has("features")) tools.push(PROGRESS_TOOL)
    if (tasks !== undefined) tools.push(Tasks.RESEARCH_TOOL)
    return tools
  }
  // Echo and the control tools can be called in every mode (even empty-list, which lists nothing).
  function isCallable(name) {
    if (name === "echo") return true
    if (has("empty-list")) return false
    const match = /^tool_(\d+)$/.exec(name)
    if (match !== null) return Number(match[1]) >= 1 && Number(match[1]) <= opts.tools
    if (has("annotations") && ANNOTATED_TOOLS.some((t) => t.name === name)) return true
    return generation > 0 && name === `generation_${generation}`
  }
  // In the modern era a change goes to the subscriptions/listen streams that asked for it (`list`:
  // tools, prompts or resources), not to everyone.
  function changeTools(burst, list = "tools") {
    if (list === "tools") generation += 1
    const method = `notifications/${list}/list_changed`
    for (let i = 0; i < burst; i++) {
      if (modern !== undefined) modern.notify(method)
      else send({ jsonrpc: "2.0", method })
    }
  }

  const text = (value) => ({ content: [{ type: "text", text: value }] })
  const toolError = (message) => ({ content: [{ type: "text", text: message }], isError: true })
  const isObject = (u) => typeof u === "object" && u !== null && !Array.isArray(u)
  const isCount = (u) => Number.isSafeInteger(u) && u >= 0

  // ---------------------------------------------------------------------------------------------
  // Server → client requests (server_request tool)
  let nextServerRequest = 0
  const serverRequests = new Map() // id → (response) => void

  // ---------------------------------------------------------------------------------------------
  // reverse: tools/call requests are held until `batch` are held or 100 ms after the first one.
  let held = []
  let heldTimer
  function hold(request) {
    held.push(request)
    if (held.length >= opts.batch) releaseHeld()
    else if (heldTimer === undefined) heldTimer = setTimeout(releaseHeld, 100)
  }
  function releaseHeld() {
    clearTimeout(heldTimer)
    heldTimer = undefined
    const batch = held.reverse()
    held = []
    for (const request of batch) if (inFlight.has(request.id)) callTool(request)
  }

  // ---------------------------------------------------------------------------------------------
  // Requests
  let received = 0
  let initializeAnswered = false

  function onRequest(request) {
    const { id, method, params } = request
    received += 1
    if (crashAfter !== undefined && received >= crashAfter) {
      return exitWith(4, `crash-after=${crashAfter}: exiting with code 4 on request ${received} (${method})`)
    }
    const token = isObject(params) && isObject(params._meta) ? params._meta.progressToken : undefined
    inFlight.set(id, typeof token === "string" || typeof token === "number" ? token : undefined)
    if (modern !== undefined) {
      methods.set(id, method)
      return onModernRequest(request)
    }
    if (method === "initialize") return initialize(id, params)
    if (has("hang") && initializeAnswered) return // never answered (unless cancelled, then dropped)
    switch (method) {
      case "ping":
        return answer(id, {})
      case "tools/list":
        return listTools(id, params)
      case "tools/call":
        if (!isObject(params) || typeof params.name !== "string") {
          return fail(id, -32602, "tools/call needs params.name (a string)")
        }
        if (has("die-on-call")) {
          return exitWith(3, `die-on-call: tool "${params.name}" was called; exiting with code 3`)
        }
        if (has("reverse")) return hold(request)
        if (tasks !== undefined && params.name === "research") return tasks.call(id, params)
        if (has("leak-env")) {
          return fail(
            id,
            -32603,
            `failed with arguments ${JSON.stringify(params.arguments ?? {})}; environment ${leakedEnv()}`
          )
        }
        return callTool(request)
      default:
        if (has("features") && FEATURES[method] !== undefined) {
          return FEATURES[method](id, isObject(params) ? params : {})
        }
        if (tasks !== undefined && tasks.handles(method)) {
          return tasks.request(id, method, isObject(params) ? params : {})
        }
        return fail(id, -32601, `Method not found: ${method}`)
    }
  }

  // The modern era: no initialize, ping or logging/setLevel; every request needs the 2026-07-28 envelope.
  function onModernRequest(request) {
    const { id, method, params } = request
    const envelope = modern.envelopeError(params)
    if (envelope !== undefined) return failWith(id, envelope)
    if (has("hang") && method !== "server/discover") return
    const settleWith = (
      outcome
    ) => (outcome.error !== undefined ? failWith(id, outcome.error) : answer(id, outcome.result))
    switch (method) {
      case "server/discover":
        return answer(id, modern.discover())
      case "subscriptions/listen":
        // Stays open (in flight) until cancelled; its stream is this stdout.
        return modern.listen(id, params, send)
      case "tools/list":
        return listTools(id, params)
      case "tools/call": {
        if (!isObject(params) || typeof params.name !== "string") {
          return fail(id, -32602, "tools/call needs params.name (a string)")
        }
        const outcome = modern.callTool(params)
        if (outcome !== undefined) return settleWith(outcome)
        if (has("die-on-call")) {
          return exitWith(3, `die-on-call: tool "${params.name}" was called; exiting with code 3`)
        }
        return callTool(request)
      }
      default: {
        const outcome = modern.onCatalog(method, params)
        if (outcome !== undefined) return settleWith(outcome)
        return fail(id, -32601, `Method not found: ${method}`)
      }
    }
  }

  function initialize(id, params) {
    if (has("no-initialize")) return // never answered
    const requested = isObject(params) ? params.protocolVersion : undefined
    const protocolVersion = opts.protocol ?? (SUPPORTED_VERSIONS.includes(requested) ? requested : LATEST_VERSION)
    initializeAnswered = true
    answer(id, {
      protocolVersion,
      capabilities: {
        ...(has("features")
          ? {
            tools: { listChanged: true },
            resources: { subscribe: true, listChanged: true },
            prompts: { listChanged: true },
            completions: {},
            logging: {}
          }
          : { tools: { listChanged: true } }),
        ...(tasks !== undefined ? { tasks: Tasks.CAPABILITY } : {})
      },
      serverInfo: { name: "fake-mcp-server", version: "1.0.0" },
      instructions: `Fake MCP server for tests (modes: ${modeLabel}). Call "echo" to get your arguments back.${
        has("leak-env") ? ` Environment: ${leakedEnv()}` : ""
      }`
    }, opts["init-delay"])
  }

  function listTools(id, params) {
    const delay = has("slow-list") ? opts["list-delay"] : 0
    const cursor = isObject(params) ? params.cursor : undefined
    if (cursor !== undefined && typeof cursor !== "string") {
      return fail(id, -32602, "tools/list params.cursor must be a string", delay)
    }
    const tools = listedTools()
    if (has("tools-list-endless") && !has("empty-list")) {
      // Page 0 is the regular tool set; page k ≥ 1 is one fresh tool. Every page has a new cursor.
      const page = cursor === undefined ? 0 : parseCursor(cursor, "endless-")
      if (page === undefined || (cursor !== undefined && page < 1)) {
        return fail(id, -32602, `Invalid cursor: ${cursor}`, delay)
      }
      const pageTools = page === 0
        ? tools
        : [{ name: `endless_${page}`, description: `From page ${page}.`, inputSchema: objectSchema() }]
      return answer(id, { tools: pageTools, nextCursor: `endless-${page + 1}` }, delay)
    }
    if (has("tools-list-paged")) {
      const size = Math.max(1, opts["page-size"])
      const offset = cursor === undefined ? 0 : parseCursor(cursor, "offset-")
      if (offset === undefined || offset > tools.length) return fail(id, -32602, `Invalid cursor: ${cursor}`, delay)
      const end = offset + size
      return answer(
        id,
        end < tools.length ? { tools: tools.slice(offset, end), nextCursor: `offset-${end}` } : {
          tools: tools.slice(offset)
        },
        delay
      )
    }
    if (cursor !== undefined) return fail(id, -32602, `Invalid cursor: ${cursor}`, delay)
    return answer(id, { tools }, delay)
  }
  // Returns the number after `prefix`, 0 for no cursor, undefined for an invalid one.
  function parseCursor(cursor, prefix) {
    if (!cursor.startsWith(prefix)) return undefined
    const rest = cursor.slice(prefix.length)
    return /^\d+$/.test(rest) ? Number(rest) : undefined
  }

  function callTool({ id, params }) {
    const name = params.name
    const args = params.arguments ?? {}
    if (!isObject(args)) return fail(id, -32602, "tools/call params.arguments must be an object")
    switch (name) {
      case "change_tools": {
        if (args.burst !== undefined && !isCount(args.burst)) {
          return answer(id, toolError("burst must be an integer >= 0"))
        }
        if (args.list !== undefined && !["tools", "prompts", "resources"].includes(args.list)) {
          return answer(id, toolError("list must be tools, prompts or resources"))
        }
        changeTools(args.burst ?? opts.burst, args.list)
        return answer(id, { ...text(`tool set changed (generation ${generation})`), structuredContent: { generation } })
      }
      case "emit": {
        const { lines, base64 } = args
        if (lines !== undefined && !(Array.isArray(lines) && lines.every((l) => typeof l === "string"))) {
          return answer(id, toolError("lines must be an array of strings"))
        }
        if (base64 !== undefined && typeof base64 !== "string") return answer(id, toolError("base64 must be a string"))
        let bytes = 0
        for (const line of lines ?? []) {
          const chunk = Buffer.from(line + "\n", "utf8")
          bytes += chunk.length
          writeRaw(chunk)
        }
        if (base64 !== undefined) {
          const chunk = Buffer.from(base64, "base64")
          bytes += chunk.length
          writeRaw(chunk)
        }
        return answer(id, { ...text(`emitted ${bytes} bytes`), structuredContent: { bytes } })
      }
      case "notify": {
        const { count = 1, method = "notifications/message", params: notifyParams } = args
        if (!isCount(count)) return answer(id, toolError("count must be an integer >= 0"))
        if (typeof method !== "string") return answer(id, toolError("method must be a string"))
        if (notifyParams !== undefined && !isObject(notifyParams)) {
          return answer(id, toolError("params must be an object"))
        }
        for (let i = 1; i <= count; i++) {
          send({
            jsonrpc: "2.0",
            method,
            params: notifyParams ?? { level: "info", logger: "fake-mcp-server", data: `notification ${i} of ${count}` }
          })
        }
        return answer(id, { ...text(`sent ${count} notification(s)`), structuredContent: { count } })
      }
      case "server_request": {
        const { method, params: requestParams } = args
        if (typeof method !== "string") return answer(id, toolError("method must be a string"))
        if (requestParams !== undefined && !isObject(requestParams)) {
          return answer(id, toolError("params must be an object"))
        }
        nextServerRequest += 1
        const requestId = `server-${nextServerRequest}`
        serverRequests.set(requestId, (reply) => {
          const { jsonrpc: _, ...structuredContent } = reply
          answer(id, { ...text(JSON.stringify(structuredContent)), structuredContent })
        })
        return send({
          jsonrpc: "2.0",
          id: requestId,
          method,
          ...(requestParams === undefined ? {} : { params: requestParams })
        })
      }
      case "exit": {
        if (args.code !== undefined && !(isCount(args.code) && args.code <= 255)) {
          return answer(id, toolError("code must be an integer 0..255"))
        }
        const code = args.code ?? opts["exit-code"]
        return exitWith(code, `exit tool called: exiting with code ${code}`)
      }
      case "report_progress": {
        if (!has("features")) return fail(id, -32602, `Unknown tool: ${name}`)
        const { steps = 3, interval = 100 } = args
        if (!isCount(steps) || !isCount(interval)) {
          return answer(id, toolError("steps and interval must be integers >= 0"))
        }
        const token = inFlight.get(id)
        let step = 0
        const tick = () => {
          if (!inFlight.has(id)) return
          if (step === steps) return answer(id, { ...text(`reported ${steps} steps`), structuredContent: { steps } })
          step += 1
          if (token !== undefined) progress(token, step, steps)
          setTimeout(tick, interval)
        }
        return setTimeout(tick, interval)
      }
      case "sleep": {
        if (!isCount(args.ms)) return answer(id, toolError("ms must be an integer >= 0"))
        return answer(id, { ...text(`slept ${args.ms} ms`), structuredContent: { ms: args.ms } }, args.ms)
      }
      default: {
        if (!isCallable(name)) {
          return fail(id, -32602, `Unknown tool: ${name}`)
        }
        if (has("huge-line")) return answerHuge(id, name)
        if (name === "echo") return answer(id, { ...text(JSON.stringify(args)), structuredContent: args })
        if (has("annotations") && ANNOTATED_TOOLS.some((t) => t.name === name)) {
          return answer(id, text(`${name} called`))
        }
        if (name.startsWith("tool_")) {
          return answer(id, { ...text(`${name}:${JSON.stringify(args)}`), structuredContent: { tool: name, args } })
        }
        return answer(id, text(`${name} called`))
      }
    }
  }

  // features: resources (text and blob, a template, subscribe → one notifications/resources/updated), prompts,
  // completion and logging/setLevel (answered with one notifications/message at the level set).
  const RESOURCES = [
    { uri: "fake://text", name: "text", mimeType: "text/plain" },
    { uri: "fake://blob", name: "blob", mimeType: "application/octet-stream" }
  ]
  const PROMPTS = [{ name: "greet", description: "Greets someone.", arguments: [{ name: "who", required: true }] }]
  const FEATURES = {
    "resources/list": (id) => answer(id, { resources: RESOURCES }),
    "resources/templates/list": (id) =>
      answer(id, { resourceTemplates: [{ uriTemplate: "fake://item/{name}", name: "item" }] }),
    "resources/read": (id, params) => {
      const uri = params.uri
      if (uri === "fake://blob") {
        return answer(id, { contents: [{ uri, mimeType: "application/octet-stream", blob: "AAECAwT/" }] })
      }
      if (typeof uri === "string" && (uri === "fake://text" || uri.startsWith("fake://item/"))) {
        return answer(id, { contents: [{ uri, mimeType: "text/plain", text: `contents of ${uri}` }] })
      }
      // As the TypeScript SDK's servers word it: their McpError puts "MCP error <code>: " in front of the text.
      return fail(id, -32002, `MCP error -32002: Resource not found: ${uri}`)
    },
    "resources/subscribe": (id, params) => {
      answer(id, {})
      send({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: params.uri } })
    },
    "resources/unsubscribe": (id) => answer(id, {}),
    "prompts/list": (id) => answer(id, { prompts: PROMPTS }, opts["prompts-delay"]),
    "prompts/get": (id, params) => {
      if (params.name !== "greet") return fail(id, -32602, `Unknown prompt: ${params.name}`)
      const who = isObject(params.arguments) ? params.arguments.who : undefined
      return answer(id, {
        description: "A greeting",
        messages: [{ role: "user", content: { type: "text", text: `Hello, ${who ?? "nobody"}!` } }]
      })
    },
    "completion/complete": (id, params) => {
      const value = isObject(params.argument) && typeof params.argument.value === "string" ? params.argument.value : ""
      const values = ["alice", "alan", "bob"].filter((v) => v.startsWith(value))
      return answer(id, { completion: { values, total: values.length, hasMore: false } })
    },
    "logging/setLevel": (id, params) => {
      answer(id, {})
      send({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: params.level, logger: "fake-mcp-server", data: `log level set to ${params.level}` }
      })
    }
  }
  const PROGRESS_TOOL = {
    name: "report_progress",
    description: "Test control: reports progress `steps` times, one every `interval` ms, then answers.",
    inputSchema: objectSchema({ steps: { type: "integer", minimum: 0 }, interval: { type: "integer", minimum: 0 } })
  }

  // huge-line: the answer to a tools/call is one line of exactly `huge-bytes` bytes (plus "\n"),
  // unless that is smaller than the smallest answer.
  function answerHuge(id, name) {
    const frame = (padding) => ({
      jsonrpc: "2.0",
      id,
      result: { content: [{ type: "text", text: padding }], structuredContent: { tool: name } }
    })
    const base = Buffer.byteLength(JSON.stringify(frame("")))
    const padding = "x".repeat(Math.max(0, opts["huge-bytes"] - base))
    if (!inFlight.has(id)) return
    inFlight.delete(id)
    writeRaw(JSON.stringify(frame(padding)) + "\n")
  }

  // ---------------------------------------------------------------------------------------------
  // Notifications and responses from the client
  function onNotification({ method, params }) {
    if (method === "notifications/initialized") {
      if (has("list-changed")) setTimeout(() => changeTools(opts.burst), opts["change-after"])
    } else if (method === "notifications/cancelled") {
      const requestId = isObject(params) ? params.requestId : undefined
      inFlight.delete(requestId)
      modern?.cancel(requestId)
      held = held.filter((r) => r.id !== requestId)
    }
    // Every other notification is ignored.
  }

  function onResponse(message) {
    const resolve = serverRequests.get(message.id)
    if (resolve === undefined) return log(`ignoring a response to unknown id ${JSON.stringify(message.id)}`)
    serverRequests.delete(message.id)
    resolve(message)
  }

  function onMessage(message) {
    if (!isObject(message) || message.jsonrpc !== "2.0") {
      return send({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request" } })
    }
    const hasId = typeof message.id === "string" || typeof message.id === "number"
    if (typeof message.method === "string") {
      if (!Object.hasOwn(message, "id")) return onNotification(message)
      if (!hasId) return send({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: bad id" } })
      if (inFlight.has(message.id)) {
        return send({ jsonrpc: "2.0", id: message.id, error: { code: -32600, message: "Duplicate request id" } })
      }
      return onRequest(message)
    }
    if (hasId && (Object.hasOwn(message, "result") || Object.hasOwn(message, "error"))) return onResponse(message)
    return send({ jsonrpc: "2.0", id: hasId ? message.id : null, error: { code: -32600, message: "Invalid Request" } })
  }

  function onLine(line) {
    if (line.length === 0) return
    let message
    try {
      message = JSON.parse(line)
    } catch {
      return send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } })
    }
    onMessage(message)
  }

  // ---------------------------------------------------------------------------------------------
  // Input: lines are split over whole chunks; one JSON.parse per line.
  let partial = []
  process.stdin.on("data", (chunk) => {
    if (exiting) return
    let start = 0
    let nl = chunk.indexOf(10)
    while (nl !== -1) {
      let line
      if (partial.length > 0) {
        partial.push(chunk.subarray(start, nl))
        line = Buffer.concat(partial).toString("utf8")
        partial = []
      } else {
        line = chunk.toString("utf8", start, nl)
      }
      onLine(line.endsWith("\r") ? line.slice(0, -1) : line)
      if (exiting) return
      start = nl + 1
      nl = chunk.indexOf(10, start)
    }
    if (start < chunk.length) partial.push(chunk.subarray(start))
  })
  process.stdin.on("end", () => {
    if (partial.length > 0) onLine(Buffer.concat(partial).toString("utf8"))
    partial = []
    if (has("ignore-sigterm")) return log("stdin ended; ignoring it (ignore-sigterm)")
    exitWith(opts["exit-code"])
  })

  // ---------------------------------------------------------------------------------------------
  // Start
  // The handlers come before the line that says it started: a parent that signals on seeing it must find them.
  if (has("ignore-sigterm")) {
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) {
      process.on(signal, () => log(`ignoring ${signal} (ignore-sigterm)`))
    }
    setInterval(() => {}, 1 << 30)
  }

  log(`started pid=${process.pid} modes=${modeLabel}`)

  if (has("leak-env")) {
    for (const [name, value] of Object.entries(process.env)) log(`env ${name}=${value}`)
    writeRaw(`leaked env: ${leakedEnv()}\n`)
  }

  if (has("junk-first")) {
    writeRaw("fake-mcp-server banner: this line is not JSON\n")
    writeRaw("[debug] listening on stdio {not json either\n")
    writeRaw("\n")
  }

  // stdout-logs: a server that prints its logs on stdout, where only JSON-RPC belongs.
  if (has("stdout-logs")) {
    let n = 0
    setInterval(() => writeRaw(`[info] stdout-logs: log line ${++n} written on stdout\n`), opts["log-interval"])
  }

  if (has("grandchild") || has("quiet-grandchild")) {
    const args = [SERVER_PATH, "--grandchild", ...(opts["run-id"] === undefined ? [] : [`run-id=${opts["run-id"]}`])]
    // `quiet-grandchild`: holds none of the server's pipes (a daemon), so only the group signal can end it.
    const stdio = has("grandchild") ? ["ignore", "inherit", "inherit"] : "ignore"
    const grandchild = spawn(process.execPath, args, { stdio })
    grandchild.unref()
    log(`grandchild pid=${grandchild.pid}`)
  }

  if (has("setsid-grandchild")) {
    const args = [SERVER_PATH, "--grandchild", ...(opts["run-id"] === undefined ? [] : [`run-id=${opts["run-id"]}`])]
    if (has("ignore-sigterm")) args.push("--ignore-sigterm")
    // Names its server, so that a test can find it once the server is gone.
    args.push(`--setsid-of=${process.pid}`)
    // `detached`: the grandchild calls setsid(), so it is in a session and process group of its own, which no
    // signal to the server's group reaches; it holds none of the server's pipes.
    const grandchild = spawn(process.execPath, args, { stdio: "ignore", detached: true })
    grandchild.unref()
    log(`setsid grandchild pid=${grandchild.pid}`)
  }

  if (has("stderr-flood")) {
    const chunk = Buffer.alloc(64 * 1024, "e".charCodeAt(0))
    chunk[chunk.length - 1] = 10
    let left = opts["flood-bytes"]
    const pump = () => {
      while (left > 0 && !floodStopped) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left)
        left -= piece.length
        if (!process.stderr.write(piece)) return process.stderr.once("drain", pump)
      }
    }
    setImmediate(pump)
  }
}
