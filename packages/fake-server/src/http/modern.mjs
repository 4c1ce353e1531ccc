// The 2026-07-28 era over HTTP for the HTTP fake server (`modern`): stateless POSTs with the `_meta`
// envelope and the standard headers, JSON replies (SSE once a request sends a related message first),
// `subscriptions/listen` as a long-lived SSE response, GET and DELETE → 405.
//   - `MCP-Protocol-Version` must equal the `_meta` version, `Mcp-Method` the body method, `Mcp-Name`
//     `params.name` (tools/call, prompts/get) or `params.uri` (resources/read): else 400 + -32020.
//   - An unsupported or missing version claim: 400 + -32022 with `data.supported` (the request's id).
//   - An unknown method: 404 + -32601.
// Tools are the HTTP fake's (mcp.mjs) plus the modern ones (modern.mjs); `server_request` has no meaning here.
import { createModern, HEADER_MISMATCH, META_KEYS, UNSUPPORTED_PROTOCOL_VERSION } from "../modern.mjs"
import { createMcpSession } from "./mcp.mjs"
import { formatEvent, sseHeaders } from "./sse.mjs"

const isObject = (u) => typeof u === "object" && u !== null && !Array.isArray(u)
const accepts = (req, type) => (req.headers.accept ?? "").toLowerCase().includes(type)

function writeJson(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(body))
}

/** A header value with the `=?base64?…?=` sentinel decoded. */
function headerValue(value) {
  if (typeof value !== "string") return undefined
  const match = /^=\?base64\?(.*)\?=$/.exec(value)
  return match === null ? value : Buffer.from(match[1], "base64").toString("utf8")
}

/** The -32020 error a request's standard headers earn, or undefined. */
function headerError(req, message) {
  const params = isObject(message.params) ? message.params : {}
  const metaVersion = isObject(params._meta) ? params._meta[META_KEYS.protocolVersion] : undefined
  const expected = [["mcp-protocol-version", metaVersion], ["mcp-method", message.method]]
  if (message.method === "tools/call" || message.method === "prompts/get") expected.push(["mcp-name", params.name])
  if (message.method === "resources/read") expected.push(["mcp-name", params.uri])
  for (const [header, want] of expected) {
    const got = headerValue(req.headers[header])
    if (got !== want) {
      return {
        code: HEADER_MISMATCH,
        message: `Header mismatch: ${header} is ${got === undefined ? "missing" : JSON.stringify(got)}, the body says ${
          JSON.stringify(want)
        }`,
        data: { mismatch: { header, header_value: got ?? null, body_value: want ?? null } }
      }
    }
  }
  return undefined
}

const statusOf = (error) =>
  error.code === UNSUPPORTED_PROTOCOL_VERSION || error.code === HEADER_MISMATCH
    ? 400
    : error.code === -32601
    ? 404
    : 200

export function createModernHttp({ flags, opts, label, timers }) {
  const has = (flag) => flags.has(flag)
  const modern = createModern({ has, ttl: opts.ttl, serverInfo: { name: "fake-mcp-http-server", version: "1.0.0" } })
  const mcp = createMcpSession({ flags, opts, label })
  const listens = new Set() // open listen responses

  /** One request's response: JSON, or SSE once something related is written before the reply. */
  function responder(res) {
    let streaming = false
    return {
      related: (message) => {
        if (res.destroyed) return
        if (!streaming) {
          streaming = true
          res.writeHead(200, sseHeaders())
        }
        res.write(formatEvent({ event: "message", data: JSON.stringify(message) }))
      },
      reply: (message) => {
        if (res.destroyed) return
        if (streaming) return res.end(formatEvent({ event: "message", data: JSON.stringify(message) }))
        writeJson(res, message.error === undefined ? 200 : statusOf(message.error), message)
      }
    }
  }

  function post(req, res, body, entry) {
    if (!accepts(req, "application/json") || !accepts(req, "text/event-stream")) {
      return writeJson(res, 406, {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32000,
          message: "Not Acceptable: Client must accept both application/json and text/event-stream"
        }
      })
    }
    let message
    try {
      message = JSON.parse(body)
    } catch {
      return writeJson(res, 400, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } })
    }
    if (!isObject(message) || message.jsonrpc !== "2.0" || typeof message.method !== "string") {
      return writeJson(res, 400, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request" } })
    }
    entry.rpc = message.method
    entry.rpcId = message.id
    if (!Object.hasOwn(message, "id")) {
      // Notifications: accepted and (but for a cancellation of a listen) ignored.
      if (message.method === "notifications/cancelled" && isObject(message.params)) {
        modern.cancel(message.params.requestId)
      }
      res.writeHead(202)
      return res.end()
    }
    const { id, method, params } = message
    const out = responder(res)
    const fail = (error) => out.reply({ jsonrpc: "2.0", id, error })
    const answer = (result) => out.reply({ jsonrpc: "2.0", id, result: modern.decorate(method, result) })
    const settle = (outcome) => (outcome.error !== undefined ? fail(outcome.error) : answer(outcome.result))
    const envelope = modern.envelopeError(params)
    if (envelope !== undefined) return fail(envelope)
    const headers = headerError(req, message)
    if (headers !== undefined) return fail(headers)
    if (flags.has("hang") && method !== "server/discover") return
    switch (method) {
      case "server/discover":
        return answer(modern.discover())
      case "subscriptions/listen": {
        res.writeHead(200, sseHeaders())
        res.flushHeaders()
        listens.add(res)
        // Closing the stream is how an HTTP client ends its subscription.
        res.on("close", () => {
          listens.delete(res)
          modern.cancel(id)
          checkWaiters()
        })
        return modern.listen(id, params, (event) => {
          if (!res.destroyed) res.write(formatEvent({ event: "message", data: JSON.stringify(event) }))
        })
      }
      case "tools/call": {
        if (opts["cut-after"] > 0) {
          // cut-after: the answer stream carries one notification and ends `cut-after` ms later, unanswered.
          res.writeHead(200, sseHeaders())
          res.write(formatEvent({
            event: "message",
            data: JSON.stringify({
              jsonrpc: "2.0",
              method: "notifications/message",
              params: { level: "info", logger: "fake-mcp-http-server", data: "this stream ends before its answer" }
            })
          }))
          const timer = setTimeout(() => {
            timers.delete(timer)
            res.end()
          }, opts["cut-after"])
          timers.add(timer)
          return
        }
        const outcome = isObject(params) && typeof params.name === "string" ? modern.callTool(params) : undefined
        if (outcome !== undefined) return settle(outcome)
        break
      }
      case "tools/list":
        break
      default: {
        const outcome = modern.onCatalog(method, params)
        if (outcome !== undefined) return settle(outcome)
        return fail({ code: -32601, message: `Method not found: ${method}` })
      }
    }
    const ctx = {
      reply: (reply) => (reply.result !== undefined ? answer(reply.result) : out.reply(reply)),
      related: out.related,
      // A message tied to no request: a change notification goes to the listen streams.
      push: (pushed) => {
        if (pushed.id === undefined) modern.notify(pushed.method, pushed.params)
      }
    }
    const kind = mcp.onMessage(message, ctx)
    if (kind === "invalid") return fail({ code: -32600, message: "Invalid Request: duplicate id" })
  }

  const notAllowed = (req, res) => {
    res.writeHead(405, { allow: "POST" })
    res.end()
  }

  function close() {
    mcp.close()
    for (const res of listens) res.end()
    listens.clear()
  }

  // Waiters for a number of open listen streams (the test kit's `?until=N`), checked whenever one opens or closes.
  const waiters = new Set()
  const checkWaiters = () => {
    for (const waiter of waiters) {
      if (modern.subscriptions.size !== waiter.count) continue
      waiters.delete(waiter)
      waiter.answer()
    }
  }
  const whenSubscriptions = (count, answer) => {
    waiters.add({ count, answer })
    checkWaiters()
  }

  return {
    post: (req, res, body, entry) => {
      post(req, res, body, entry)
      checkWaiters()
    },
    get: notAllowed,
    del: notAllowed,
    close,
    subscriptions: () => [...modern.subscriptions.keys()],
    whenSubscriptions
  }
}
