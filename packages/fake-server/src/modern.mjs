// The 2026-07-28 era of the fake server, independent of how messages travel: the `_meta` envelope
// check, server/discover, resultType and cache hints on results, subscriptions/listen, the MRTR
// (`input_required`) rounds with their requestState check, and small prompt and resource fixtures.
// server.mjs (stdio) and http/modern.mjs (HTTP) drive it. Fault switches (vocabulary.mjs):
//   wrong-result-type  tools/call results carry resultType "bogus"
//   mrtr-endless       every MRTR round asks for input again (the client must give up)
//   listen-no-ack      subscriptions/listen is never acknowledged
//   unsupported-empty  every request gets -32022 with an empty `supported` list
// The requestState check is always on: a retry whose requestState is not byte-for-byte one the server
// issued (or that drops it) fails with -32602.
export const MODERN_VERSION = "2026-07-28"

export const META_KEYS = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId"
}

export const UNSUPPORTED_PROTOCOL_VERSION = -32022
export const HEADER_MISMATCH = -32020

const LIST_METHODS = new Set(["tools/list", "prompts/list", "resources/list", "resources/templates/list"])
// subscriptions/listen filter key → the notification it lets through.
const LIST_FILTERS = {
  toolsListChanged: "notifications/tools/list_changed",
  promptsListChanged: "notifications/prompts/list_changed",
  resourcesListChanged: "notifications/resources/list_changed"
}

const isObject = (u) => typeof u === "object" && u !== null && !Array.isArray(u)
const text = (value) => ({ content: [{ type: "text", text: value }] })

/** The tools only the modern era lists (after the regular ones). */
export const MODERN_TOOLS = [
  {
    name: "mrtr",
    description:
      "Multi-round-trip: asks for input (`kinds`: elicitation, roots, sampling; default elicitation), then returns the inputResponses it got.",
    inputSchema: {
      type: "object",
      properties: { kinds: { type: "array", items: { type: "string", enum: ["elicitation", "roots", "sampling"] } } }
    }
  },
  {
    name: "meta",
    description: "Test control: returns this request's params._meta as structuredContent.",
    inputSchema: { type: "object", properties: {} }
  },
  {
    name: "touch",
    description:
      "Test control: sends notifications/resources/updated for `uri` to the listen streams subscribed to it.",
    inputSchema: { type: "object", properties: { uri: { type: "string" } }, required: ["uri"] }
  }
]

const PROMPTS = [
  { name: "greet", description: "Says hello to `name`.", arguments: [{ name: "name", required: false }] },
  { name: "mrtr", description: "Multi-round-trip: asks for a confirmation before it answers." }
]
const RESOURCES = [
  { uri: "fake://readme", name: "readme", mimeType: "text/plain" },
  { uri: "fake://mrtr", name: "mrtr", description: "Multi-round-trip: asks for a confirmation before it is read." }
]
const TEMPLATES = [{ uriTemplate: "fake://items/{id}", name: "item" }]

const INPUT_REQUESTS = {
  elicitation: {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: "Confirm?",
      requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] }
    }
  },
  roots: { method: "roots/list", params: {} },
  sampling: {
    method: "sampling/createMessage",
    params: { messages: [{ role: "user", content: { type: "text", text: "Say hi." } }], maxTokens: 16 }
  }
}

/**
 * One modern-era server state. `has(mode)` reads the modes, `ttl` is the `ttl` option (ms),
 * `serverInfo` the server's name and version.
 */
export function createModern({ has, ttl, serverInfo }) {
  const subscriptions = new Map() // listen request id → { honoured, emit }
  const issued = new Map() // requestState → round number
  let nextState = 0

  const rpcError = (code, message, data) => ({ code, message, ...(data === undefined ? {} : { data }) })

  /** The error a request's envelope earns, or undefined when it is a valid 2026-07-28 request. */
  function envelopeError(params) {
    const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined
    const requested = meta?.[META_KEYS.protocolVersion]
    if (has("unsupported-empty")) {
      return rpcError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", {
        supported: [],
        requested: typeof requested === "string" ? requested : "unknown"
      })
    }
    if (requested !== MODERN_VERSION) {
      return rpcError(
        UNSUPPORTED_PROTOCOL_VERSION,
        `Unsupported protocol version: ${typeof requested === "string" ? requested : "none claimed"}`,
        { supported: [MODERN_VERSION], requested: typeof requested === "string" ? requested : "unknown" }
      )
    }
    if (!isObject(meta[META_KEYS.clientCapabilities])) {
      return rpcError(-32602, `Invalid _meta envelope: ${META_KEYS.clientCapabilities} is required`)
    }
    return undefined
  }

  /** A result as the modern era sends it: resultType, cache hints on lists, serverInfo in _meta. */
  function decorate(method, result) {
    const out = { ...result }
    if (method === "tools/list" && out.nextCursor === undefined && Array.isArray(out.tools)) {
      out.tools = [...out.tools, ...MODERN_TOOLS]
    }
    out.resultType = method === "tools/call" && has("wrong-result-type") ? "bogus" : (result.resultType ?? "complete")
    if (LIST_METHODS.has(method) || method === "server/discover") {
      out.ttlMs = ttl
      out.cacheScope = "private"
    }
    out._meta = { ...(isObject(result._meta) ? result._meta : {}), [META_KEYS.serverInfo]: serverInfo }
    return out
  }

  const discover = () => ({
    supportedVersions: [MODERN_VERSION],
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true, subscribe: true }
    },
    serverInfo,
    instructions: "Fake MCP server, 2026-07-28 era. Call \"mrtr\" for a multi-round-trip request."
  })

  /** Opens a subscription for listen request `id`; `emit` writes one message on its stream. */
  function listen(id, params, emit) {
    const asked = isObject(params) && isObject(params.notifications) ? params.notifications : {}
    const honoured = {}
    for (const key of Object.keys(LIST_FILTERS)) if (asked[key] === true) honoured[key] = true
    if (Array.isArray(asked.resourceSubscriptions)) {
      honoured.resourceSubscriptions = asked.resourceSubscriptions.filter((u) => typeof u === "string")
    }
    subscriptions.set(id, { honoured, emit })
    if (has("listen-no-ack")) return
    emit({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: honoured, _meta: { [META_KEYS.subscriptionId]: id } }
    })
  }

  /** Ends the subscription of listen request `id`; whether there was one. */
  const cancel = (id) => subscriptions.delete(id)

  /** Sends a change notification to every subscription that opted in to it; how many got it. */
  function notify(method, params = {}) {
    let sent = 0
    for (const [id, { honoured, emit }] of subscriptions) {
      const wanted = method === "notifications/resources/updated"
        ? honoured.resourceSubscriptions?.includes(params.uri) === true
        : Object.entries(LIST_FILTERS).some(([key, m]) => m === method && honoured[key] === true)
      if (!wanted) continue
      sent += 1
      emit({ jsonrpc: "2.0", method, params: { ...params, _meta: { [META_KEYS.subscriptionId]: id } } })
    }
    return sent
  }

  /**
   * One MRTR round for `params` (tools/call, prompts/get or resources/read): `{ result }` or `{ error }`.
   * `finish(responses, rounds)` builds the complete result.
   */
  function mrtrRound(params, kinds, finish) {
    const hasState = Object.hasOwn(params, "requestState")
    const retry = hasState || Object.hasOwn(params, "inputResponses")
    let rounds = 1
    if (retry) {
      const round = hasState ? issued.get(params.requestState) : undefined
      if (round === undefined) {
        return {
          error: rpcError(
            -32602,
            `requestState ${
              hasState ? JSON.stringify(params.requestState) : "(absent)"
            } differs from every state this server issued`
          )
        }
      }
      issued.delete(params.requestState)
      rounds = round + 1
      if (!has("mrtr-endless")) return { result: finish(params.inputResponses ?? {}, rounds) }
    }
    nextState += 1
    const state = `fake-state-${nextState}:${"\u00e9"} ${rounds}`
    issued.set(state, rounds)
    const inputRequests = {}
    for (const kind of kinds) inputRequests[kind] = INPUT_REQUESTS[kind]
    return { result: { resultType: "input_required", inputRequests, requestState: state } }
  }

  /** tools/call of a modern-only tool: `{ result }`, `{ error }`, or undefined when the tool is not one of them. */
  function callTool(params) {
    const args = isObject(params.arguments) ? params.arguments : {}
    switch (params.name) {
      case "mrtr": {
        const kinds = Array.isArray(args.kinds) && args.kinds.length > 0 ? args.kinds : ["elicitation"]
        if (!kinds.every((k) => Object.hasOwn(INPUT_REQUESTS, k))) {
          return { result: { ...text("kinds must be elicitation, roots or sampling"), isError: true } }
        }
        return mrtrRound(params, kinds, (inputResponses, rounds) => ({
          ...text(JSON.stringify(inputResponses)),
          structuredContent: { inputResponses, rounds }
        }))
      }
      case "meta":
        return { result: { ...text(JSON.stringify(params._meta)), structuredContent: params._meta } }
      case "touch": {
        if (typeof args.uri !== "string") return { result: { ...text("uri must be a string"), isError: true } }
        const sent = notify("notifications/resources/updated", { uri: args.uri })
        return { result: { ...text(`notified ${sent} subscription(s)`), structuredContent: { sent } } }
      }
      default:
        return undefined
    }
  }

  /** prompts/*, resources/*: `{ result }` or `{ error }`, or undefined for another method. */
  function onCatalog(method, params) {
    const p = isObject(params) ? params : {}
    switch (method) {
      case "prompts/list":
        return { result: { prompts: PROMPTS } }
      case "resources/list":
        return { result: { resources: RESOURCES } }
      case "resources/templates/list":
        return { result: { resourceTemplates: TEMPLATES } }
      case "prompts/get": {
        if (p.name === "greet") {
          const name = isObject(p.arguments) && typeof p.arguments.name === "string" ? p.arguments.name : "world"
          return { result: { messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}!` } }] } }
        }
        if (p.name === "mrtr") {
          return mrtrRound(p, ["elicitation"], (inputResponses, rounds) => ({
            description: `answered after ${rounds} round(s)`,
            messages: [{ role: "user", content: { type: "text", text: JSON.stringify(inputResponses) } }]
          }))
        }
        return { error: rpcError(-32602, `Unknown prompt: ${p.name}`) }
      }
      case "resources/read": {
        if (p.uri === "fake://readme") {
          return {
            result: { contents: [{ uri: p.uri, mimeType: "text/plain", text: "The fake server, modern era." }] }
          }
        }
        if (p.uri === "fake://mrtr") {
          return mrtrRound(p, ["elicitation"], (inputResponses) => ({
            contents: [{ uri: p.uri, mimeType: "application/json", text: JSON.stringify(inputResponses) }]
          }))
        }
        return { error: rpcError(-32002, `Resource not found: ${p.uri}`) }
      }
      default:
        return undefined
    }
  }

  return { envelopeError, decorate, discover, listen, cancel, notify, callTool, onCatalog, subscriptions }
}
