// The HTTP fake server's tokens, written once: every flag, option and fault switch, with its default.
// Tokens come from the command line (or FAKE_MCP_MODE), space separated, like the stdio server's:
//
//   node http-server.mjs reply=sse drop-after=1 retry=500
//   node http-server.mjs legacy-sse
//   node http-server.mjs fault=status status=503 retry-after=2 fault-count=1
//
// See ../../README.md ("The HTTP fake server") for what each one does.

import { modernModes, numberOptions } from "../vocabulary.mjs"

/** Flags: present or not. The 2026-07-28 era and its fault switches come from vocabulary.mjs (`modernModes`). */
export const FLAGS = new Set([
  ...modernModes,
  "legacy-sse", // serve the 2024-11-05 HTTP+SSE transport (GET /sse + POST /message) instead of Streamable HTTP
  "stateless", // Streamable HTTP without sessions: no Mcp-Session-Id, GET → 405
  "no-get", // GET → 405 (the server offers no standalone stream)
  "no-delete", // DELETE → 405
  "no-retry", // SSE streams carry no `retry:` field
  "get-never-closes", // DELETE and shutdown leave open GET streams open (the client must abort them)
  "forget-sessions", // every request that carries an Mcp-Session-Id gets 404 (a load balancer without affinity)
  "shared-tools", // change_tools changes the server's tool set (every session sees it) and tells only its own session
  "no-endpoint", // legacy-sse: the GET stream never sends its `endpoint` event (it stays open, silent)
  "hang", // initialize is answered, later requests never are (stdio parity)
  "no-initialize" // initialize is never answered (stdio parity)
])

/** The fault switches: `fault=<name>` picks one; fault-on / fault-from / fault-count select the POSTs it hits. */
export const FAULTS = new Set([
  "status", // answer with HTTP `status` (401/403 carry WWW-Authenticate, `retry-after` adds Retry-After)
  "redirect-same", // 307 to /redirected/mcp on the same origin (which serves normally)
  "redirect-other", // 307 to http://localhost:<port>/redirected/mcp, another origin
  "slow-headers", // wait `delay` ms before the status line, then answer normally
  "never-answer", // read the request, never send a status line
  "huge-body", // the reply carries a text of `huge-bytes` bytes, streamed with backpressure
  "non-json-body", // 200 application/json whose body is not JSON
  "slowloris", // 200 application/json, the real body one byte every `delay` ms
  "wrong-content-type", // 200 text/html
  "invalid-sse-event", // 200 text/event-stream whose first message event is not JSON, then the real reply
  "no-ack", // legacy-sse: the message is handled and answered on the stream, but its POST is never answered
  "gzip-bomb" // 200 application/json, Content-Encoding: gzip, a body that inflates to `huge-bytes` bytes
])

/** Numeric options: name → default. All are non-negative integers. */
export const NUMBERS = {
  "port": 0, // 0 = an ephemeral port
  "tools": 2, // synthetic tools tool_1 … tool_N
  "retry": 1000, // the `retry:` value (ms) of priming events
  "drop-after": 0, // end each new SSE stream's first connection after N events (priming included; not initialize's)
  "reset-after": 0, // the same, but destroy the socket (a reset) instead of ending the response
  "expire-after": 0, // a session is forgotten after N POSTs that carry it; 0 = never
  "expire-status": 404, // what a forgotten or unknown session gets: 404, or 400 as everything-server answers
  "status": 503, // the status of fault=status
  "retry-after": 0, // Retry-After seconds on fault=status; 0 = no header
  "delay": 200, // ms for slow-headers and slowloris
  "huge-bytes": 16 * 1024 * 1024, // the text size of fault=huge-body
  "fault-from": 1, // the first matching POST (1-based) the fault hits
  "fault-count": 0, // how many matching POSTs the fault hits; 0 = every one from fault-from on
  "get-status": 0, // a GET of the MCP endpoint gets this status ("Cannot GET /mcp", as an app that routes only POST)
  "get-close-after": 0, // every GET stream connection gets a priming event and is ended this many ms later
  "ping-flood": 0, // a tools/call answered over SSE first carries this many ping requests; their answers are held
  "cut-after": 0, // modern: a tools/call stream sends one notification and ends this many ms later, unanswered
  [numberOptions.ttl.token]: numberOptions.ttl.default // modern: the ttlMs of list results
}

/** String options: name → default. */
export const STRINGS = {
  "reply": "json", // json | sse: how a POSTed request is answered
  "fault": undefined, // one of FAULTS
  "fault-on": undefined, // only POSTs of this JSON-RPC method count for the fault (default: every POST)
  "endpoint": "same", // legacy-sse: same | other — the origin of the `endpoint` event's URL
  "run-id": undefined // tags the process for LeakGuard; no effect
}

const CHOICES = {
  "reply": ["json", "sse"],
  "fault": [...FAULTS],
  "endpoint": ["same", "other"],
  "expire-status": [400, 404]
}

/**
 * Parses tokens. Returns `{ flags, opts }`, or `{ error }` naming the first bad token.
 */
export function parseTokens(tokens) {
  const flags = new Set()
  const opts = { ...NUMBERS, ...STRINGS }
  for (const token of tokens) {
    const eq = token.indexOf("=")
    if (eq === -1) {
      if (!FLAGS.has(token)) return { error: `unknown mode "${token}"` }
      flags.add(token)
      continue
    }
    const key = token.slice(0, eq)
    const value = token.slice(eq + 1)
    if (Object.hasOwn(NUMBERS, key)) {
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
        return { error: `option "${token}" needs a non-negative integer value` }
      }
      opts[key] = Number(value)
    } else if (Object.hasOwn(STRINGS, key)) {
      if (value.length === 0) return { error: `option "${token}" needs a value` }
      opts[key] = value
    } else {
      return { error: `unknown option "${key}" in "${token}"` }
    }
    const choices = CHOICES[key]
    if (choices !== undefined && !choices.includes(opts[key])) {
      return { error: `option "${token}" must be one of ${choices.join(", ")}` }
    }
  }
  if (opts.port > 65535) return { error: `option "port=${opts.port}" must be at most 65535` }
  if (opts.status < 100 || opts.status > 599) return { error: `option "status=${opts.status}" must be 100..599` }
  if (opts["fault-from"] < 1) return { error: `option "fault-from" needs a value of at least 1` }
  if (opts["get-status"] !== 0 && (opts["get-status"] < 100 || opts["get-status"] > 599)) {
    return { error: `option "get-status=${opts["get-status"]}" must be 0 (off) or 100..599` }
  }
  return { flags, opts }
}
