// The MCP side of the HTTP fake server: one session's requests, tools and server→client traffic,
// independent of how messages travel. The transport gives each request a context:
//   reply(message)    — the request's response (its JSON body or the last event of its SSE stream)
//   related(message)  — a message tied to the request (progress, notify): its SSE stream, else the GET stream
//   push(message)     — a message tied to no request (list_changed, server requests): the GET stream
export const SUPPORTED_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
export const LATEST_VERSION = "2025-11-25"

const isObject = (u) => typeof u === "object" && u !== null && !Array.isArray(u)
const isCount = (u) => Number.isSafeInteger(u) && u >= 0
const text = (value) => ({ content: [{ type: "text", text: value }] })
const toolError = (message) => ({ content: [{ type: "text", text: message }], isError: true })
const objectSchema = (properties = {}, required) => ({
  type: "object",
  properties,
  ...(required === undefined ? {} : { required })
})

export const CONTROL_TOOLS = [
  {
    name: "change_tools",
    description: "Test control: changes the tool set and pushes notifications/tools/list_changed `burst` times.",
    inputSchema: objectSchema({ burst: { type: "integer", minimum: 0 } })
  },
  {
    name: "notify",
    description: "Test control: sends `count` notifications tied to this call (default notifications/message).",
    inputSchema: objectSchema({ count: { type: "integer", minimum: 0 }, method: { type: "string" } })
  },
  {
    name: "server_request",
    description: "Test control: sends a request to the client on the GET stream and returns the client's reply.",
    inputSchema: objectSchema({ method: { type: "string" }, params: { type: "object" } }, ["method"])
  },
  {
    name: "sleep",
    description: "Test control: answers after `ms` milliseconds (with progress when a progressToken is given).",
    inputSchema: objectSchema({ ms: { type: "integer", minimum: 0 } }, ["ms"])
  }
]
const ECHO_TOOL = {
  name: "echo",
  description: "Returns its arguments as text and as structuredContent.",
  inputSchema: { type: "object", additionalProperties: true }
}

/** The server's own tool-set generation, which `shared-tools` sessions share. */
const server = { generation: 0 }

/** One MCP session. `onMessage(message, ctx)` returns what the message was: request, notification, response, invalid. */
export function createMcpSession({ flags, opts, label }) {
  // `shared-tools`: the tool set is the server's, not the session's (a change is seen by every session, and only the
  // session that made it is told, as a server built of one SDK `Server` per session behaves).
  const own = { generation: 0 }
  const toolSet = flags.has("shared-tools") ? server : own
  let initializeAnswered = false
  let nextServerRequest = 0
  const inFlight = new Map() // id → ctx (an answer is written only while its id is in flight)
  const serverRequests = new Map() // id → (reply) => void
  const timers = new Set()

  const later = (ms, fn) => {
    const timer = setTimeout(() => {
      timers.delete(timer)
      fn()
    }, ms)
    timers.add(timer)
  }
  const deliver = (id, message) => {
    const ctx = inFlight.get(id)
    if (ctx === undefined) return
    inFlight.delete(id)
    ctx.reply(message)
  }
  const answer = (id, result) => deliver(id, { jsonrpc: "2.0", id, result })
  const fail = (id, code, message) => deliver(id, { jsonrpc: "2.0", id, error: { code, message } })

  function listedTools() {
    const tools = [ECHO_TOOL]
    for (let i = 1; i <= opts.tools; i++) {
      tools.push({
        name: `tool_${i}`,
        description: `Synthetic tool number ${i}.`,
        inputSchema: objectSchema({ value: { type: "string" } })
      })
    }
    const generation = toolSet.generation
    if (generation > 0) {
      tools.push({
        name: `generation_${generation}`,
        description: `Present after the tool set changed ${generation} time(s).`,
        inputSchema: objectSchema()
      })
    }
    return [...tools, ...CONTROL_TOOLS]
  }

  function onRequest({ id, method, params }, ctx) {
    inFlight.set(id, ctx)
    if (method === "initialize") {
      if (flags.has("no-initialize")) return
      const requested = isObject(params) ? params.protocolVersion : undefined
      initializeAnswered = true
      return answer(id, {
        protocolVersion: SUPPORTED_VERSIONS.includes(requested) ? requested : LATEST_VERSION,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: "fake-mcp-http-server", version: "1.0.0" },
        instructions: `Fake MCP server over HTTP for tests (modes: ${label}). Call "echo" to get your arguments back.`
      })
    }
    if (flags.has("hang") && initializeAnswered) return
    switch (method) {
      case "ping":
        return answer(id, {})
      case "tools/list":
        if (isObject(params) && params.cursor !== undefined) return fail(id, -32602, `Invalid cursor: ${params.cursor}`)
        return answer(id, { tools: listedTools() })
      case "tools/call":
        if (!isObject(params) || typeof params.name !== "string") {
          return fail(id, -32602, "tools/call needs params.name (a string)")
        }
        return callTool(id, params, ctx)
      default:
        return fail(id, -32601, `Method not found: ${method}`)
    }
  }

  function callTool(id, params, ctx) {
    const name = params.name
    const args = params.arguments ?? {}
    if (!isObject(args)) return fail(id, -32602, "tools/call params.arguments must be an object")
    const token = isObject(params._meta) ? params._meta.progressToken : undefined
    switch (name) {
      case "echo":
        return answer(id, { ...text(JSON.stringify(args)), structuredContent: args })
      case "change_tools": {
        if (args.burst !== undefined && !isCount(args.burst)) {
          return answer(id, toolError("burst must be an integer >= 0"))
        }
        const generation = ++toolSet.generation
        for (let i = 0; i < (args.burst ?? 1); i++) {
          ctx.push({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
        }
        return answer(id, { ...text(`tool set changed (generation ${generation})`), structuredContent: { generation } })
      }
      case "notify": {
        const { count = 1, method = "notifications/message" } = args
        if (!isCount(count)) return answer(id, toolError("count must be an integer >= 0"))
        if (typeof method !== "string") return answer(id, toolError("method must be a string"))
        for (let i = 1; i <= count; i++) {
          ctx.related({
            jsonrpc: "2.0",
            method,
            params: { level: "info", logger: "fake-mcp-http-server", data: `notification ${i} of ${count}` }
          })
        }
        return answer(id, { ...text(`sent ${count} notification(s)`), structuredContent: { count } })
      }
      case "server_request": {
        const { method, params: requestParams } = args
        if (typeof method !== "string") return answer(id, toolError("method must be a string"))
        nextServerRequest += 1
        const requestId = `server-${nextServerRequest}`
        serverRequests.set(requestId, (reply) => {
          const { jsonrpc: _, ...structuredContent } = reply
          answer(id, { ...text(JSON.stringify(structuredContent)), structuredContent })
        })
        return ctx.push({
          jsonrpc: "2.0",
          id: requestId,
          method,
          ...(isObject(requestParams) ? { params: requestParams } : {})
        })
      }
      case "sleep": {
        if (!isCount(args.ms)) return answer(id, toolError("ms must be an integer >= 0"))
        const progress = (step) =>
          ctx.related({
            jsonrpc: "2.0",
            method: "notifications/progress",
            params: { progressToken: token, progress: step, total: 2 }
          })
        if (token !== undefined) progress(1)
        return later(args.ms, () => {
          if (token !== undefined && inFlight.has(id)) progress(2)
          answer(id, { ...text(`slept ${args.ms} ms`), structuredContent: { ms: args.ms } })
        })
      }
      default: {
        const match = /^tool_(\d+)$/.exec(name)
        if (match !== null && Number(match[1]) >= 1 && Number(match[1]) <= opts.tools) {
          return answer(id, { ...text(`${name}:${JSON.stringify(args)}`), structuredContent: { tool: name, args } })
        }
        if (toolSet.generation > 0 && name === `generation_${toolSet.generation}`) {
          return answer(id, text(`${name} called`))
        }
        return fail(id, -32602, `Unknown tool: ${name}`)
      }
    }
  }

  function onMessage(message, ctx) {
    if (!isObject(message) || message.jsonrpc !== "2.0") return "invalid"
    const hasId = typeof message.id === "string" || typeof message.id === "number"
    if (typeof message.method === "string") {
      if (!Object.hasOwn(message, "id")) {
        if (message.method === "notifications/cancelled" && isObject(message.params)) {
          inFlight.delete(message.params.requestId)
        }
        return "notification"
      }
      if (!hasId || inFlight.has(message.id)) return "invalid"
      onRequest(message, ctx)
      return "request"
    }
    if (hasId && (Object.hasOwn(message, "result") || Object.hasOwn(message, "error"))) {
      const resolve = serverRequests.get(message.id)
      serverRequests.delete(message.id)
      if (resolve !== undefined) resolve(message)
      return "response"
    }
    return "invalid"
  }

  function close() {
    for (const timer of timers) clearTimeout(timer)
    timers.clear()
    inFlight.clear()
  }

  return { onMessage, close }
}
