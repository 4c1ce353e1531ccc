/**
 * The status page's files, as the gateway serves them. Written by `scripts/page-assets.mjs` from `src/status/page/`:
 * edit those files, then run `pnpm --filter @mcp-fleet/gateway page`.
 *
 * @internal
 */

/** The page (`src/status/page/index.html`). */
export const html: string = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>mcp-fleet status</title>
<link rel="stylesheet" href="/status.css">
<script type="module" src="/status.js"></script>
</head>
<body>
<header>
  <h1>mcp-fleet status</h1>
  <p id="connection" class="connection" data-connection="connecting" role="status" aria-live="polite">Connecting…</p>
</header>
<main>
  <form id="signin" class="signin" hidden>
    <h2>Sign in</h2>
    <p>This gateway asks for its bearer token (the value of <code>--token-env</code>). It is sent once, in a header,
      and traded for a cookie that only this page's data can read; it is not kept in the page.</p>
    <label for="token">Bearer token</label>
    <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required>
    <button type="submit">Sign in</button>
    <p id="signin-error" class="error" role="alert"></p>
  </form>

  <div id="fleet" hidden>
    <p id="summary" class="summary"></p>

    <section aria-labelledby="servers-title">
      <h2 id="servers-title">Servers</h2>
      <div class="scroll" role="region" aria-labelledby="servers-caption" tabindex="0">
        <table id="servers">
          <caption id="servers-caption">Each server: its state, what it offers, its last error</caption>
          <thead>
            <tr>
              <th scope="col">Server</th>
              <th scope="col">State</th>
              <th scope="col">Transport</th>
              <th scope="col">Offers</th>
              <th scope="col">Reconnection</th>
              <th scope="col">In state for</th>
              <th scope="col">Latency</th>
              <th scope="col">Last error</th>
            </tr>
          </thead>
          <tbody></tbody>
        </table>
      </div>
    </section>

    <section aria-labelledby="hosts-title">
      <h2 id="hosts-title">Connected hosts</h2>
      <p id="gateway" class="note"></p>
      <div class="scroll" role="region" aria-labelledby="hosts-caption" tabindex="0">
        <table id="hosts">
          <caption id="hosts-caption">Each host, by its clientInfo and profile</caption>
          <thead>
            <tr>
              <th scope="col">Client</th>
              <th scope="col">Version</th>
              <th scope="col">Profile</th>
              <th scope="col">Protocol</th>
              <th scope="col">Transport</th>
              <th scope="col" class="num">In flight</th>
            </tr>
          </thead>
          <tbody></tbody>
        </table>
      </div>
    </section>

    <section aria-labelledby="tools-title">
      <h2 id="tools-title">Tool calls</h2>
      <div class="scroll" role="region" aria-labelledby="tools-caption" tabindex="0">
        <table id="tools">
          <caption id="tools-caption">Calls per tool over the last <span id="window">5 min</span></caption>
          <thead>
            <tr>
              <th scope="col">Server</th>
              <th scope="col">Tool</th>
              <th scope="col" class="num">Calls</th>
              <th scope="col" class="num">Errors</th>
              <th scope="col" class="num">p50</th>
              <th scope="col" class="num">p99</th>
            </tr>
          </thead>
          <tbody></tbody>
        </table>
      </div>
    </section>

    <details>
      <summary>Status text</summary>
      <pre id="status-text"></pre>
    </details>
  </div>
</main>
<footer>
  <p>Read-only. Updated live from the gateway (Server-Sent Events); <span id="updated">no update yet</span>.
    <button id="signout" type="button" hidden>Sign out</button></p>
</footer>
</body>
</html>
`

/** Its style sheet (`src/status/page/status.css`). */
export const css: string = `:root {
  color-scheme: light dark;
  --fg: #1b1f24;
  --muted: #57606a;
  --bg: #ffffff;
  --panel: #f6f8fa;
  --line: #d0d7de;
  --ready: #1a7f37;
  --starting: #9a6700;
  --degraded: #bc4c00;
  --offline: #cf222e;
  --disabled: #57606a;
  --unauthorized: #8250df;
  --p50: #0969da;
  --p99: #bc4c00;
}

@media (prefers-color-scheme: dark) {
  :root {
    --fg: #e6edf3;
    --muted: #9198a1;
    --bg: #0d1117;
    --panel: #161b22;
    --line: #30363d;
    --ready: #3fb950;
    --starting: #d29922;
    --degraded: #db6d28;
    --offline: #f85149;
    --disabled: #9198a1;
    --unauthorized: #a371f7;
    --p50: #4493f8;
    --p99: #db6d28;
  }
}

* {
  box-sizing: border-box;
}

body {
  margin: 0;
  padding: 1rem;
  font: 1rem/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--fg);
  background: var(--bg);
}

header {
  display: flex;
  flex-wrap: wrap;
  align-items: baseline;
  gap: 0.5rem 1.5rem;
}

h1 {
  font-size: 1.5rem;
  margin: 0;
}

h2 {
  font-size: 1.2rem;
  margin: 1.5rem 0 0.5rem;
}

code,
pre {
  font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
  font-size: 0.9em;
}

pre {
  white-space: pre-wrap;
  overflow-wrap: anywhere;
  background: var(--panel);
  border: 1px solid var(--line);
  padding: 0.75rem;
}

.connection {
  margin: 0;
  padding: 0.15rem 0.6rem;
  border: 1px solid var(--line);
  border-radius: 1rem;
}

.connection::before {
  content: "● ";
}

.connection[data-connection="live"]::before {
  color: var(--ready);
}

.connection[data-connection="lost"]::before,
.connection[data-connection="signed-out"]::before {
  color: var(--offline);
}

.connection[data-connection="connecting"]::before {
  color: var(--starting);
}

.summary {
  font-weight: 600;
  padding: 0.5rem 0.75rem;
  background: var(--panel);
  border-left: 4px solid var(--line);
  overflow-wrap: anywhere;
}

.scroll {
  max-width: 100%;
  overflow-x: auto;
}

table {
  border-collapse: collapse;
  width: 100%;
}

caption {
  text-align: left;
  color: var(--muted);
  padding-bottom: 0.35rem;
}

th,
td {
  text-align: left;
  vertical-align: top;
  padding: 0.35rem 0.6rem;
  border-bottom: 1px solid var(--line);
}

thead th {
  background: var(--panel);
  white-space: nowrap;
}

.num {
  text-align: right;
  font-variant-numeric: tabular-nums;
}

td.error-text {
  min-width: 16rem;
  max-width: 40rem;
  overflow-wrap: anywhere;
}

th[scope="row"] {
  min-width: 7rem;
}

td[data-col="since"] {
  white-space: nowrap;
}

.url {
  display: block;
  font-weight: normal;
  color: var(--muted);
  overflow-wrap: anywhere;
}

.state {
  display: inline-block;
  padding: 0 0.5rem;
  border-radius: 0.75rem;
  border: 1px solid currentColor;
  font-weight: 600;
  white-space: nowrap;
}

.state::before {
  content: "● ";
}

.state[data-state="ready"] {
  color: var(--ready);
}

.state[data-state="starting"] {
  color: var(--starting);
}

.state[data-state="degraded"] {
  color: var(--degraded);
}

.state[data-state="offline"] {
  color: var(--offline);
}

.state[data-state="disabled"] {
  color: var(--disabled);
}

.state[data-state="unauthorized"] {
  color: var(--unauthorized);
}

.chart {
  display: block;
  width: 10rem;
  height: 2.5rem;
}

.chart .axis {
  stroke: var(--line);
  stroke-width: 1;
}

.chart .p50 {
  fill: none;
  stroke: var(--p50);
  stroke-width: 1.5;
}

.chart .p99 {
  fill: none;
  stroke: var(--p99);
  stroke-width: 1.5;
  stroke-dasharray: 3 2;
}

.key-p50 {
  color: var(--p50);
}

.key-p99 {
  color: var(--p99);
}

.legend {
  display: block;
  font-size: 0.8rem;
  color: var(--muted);
  white-space: nowrap;
}

.note,
.muted {
  color: var(--muted);
}

.signin {
  max-width: 32rem;
  padding: 1rem;
  border: 1px solid var(--line);
  background: var(--panel);
}

.signin input {
  display: block;
  width: 100%;
  margin: 0.25rem 0 0.75rem;
  padding: 0.4rem;
  font: inherit;
}

.error {
  color: var(--offline);
}

button {
  font: inherit;
  padding: 0.3rem 0.9rem;
}

footer {
  margin-top: 2rem;
  color: var(--muted);
}

[hidden] {
  display: none !important;
}
`

/** Its script (`src/status/page/status.js`). */
export const js: string = `// @ts-check
/**
 * The status page's script: signs in when the gateway asks for its token, then renders the \`state\` and \`metrics\`
 * events of \`/status/events\` (Server-Sent Events) as they come. Plain JavaScript, served as it is written (type-checked
 * by tsc through the JSDoc below: tsconfig.json beside it); no library, no inline code, text only (\`textContent\`,
 * never HTML from the gateway).
 *
 * The token is taken from the sign-in form, or once from the URL's fragment (\`/#token=…\`, which the browser never
 * sends: it is removed from the address bar at once); it is sent once in an \`Authorization\` header and traded for an
 * HttpOnly cookie the script cannot read. It is never stored.
 */

/**
 * @typedef {{
 *   name: string, state: string, line: string, era: "legacy" | "modern" | undefined, version: string | undefined,
 *   transport: string, url: string | undefined, tools: number | undefined, resources: number | undefined,
 *   prompts: number | undefined, lastError: string | undefined, attempt: number, maxAttempts: number | undefined,
 *   gaveUp: boolean, nextRetryAt: number | undefined, since: number, pid: number | undefined
 * }} ServerRow
 * @typedef {{ now: number, summary: string, text: string, servers: Array<ServerRow> }} StateEvent
 * @typedef {{
 *   name: string | undefined, version: string | undefined, profile: string | undefined, era: string,
 *   transport: string, protocolVersion: string, inFlight: number
 * }} HostRow
 * @typedef {{
 *   server: string, tool: string, calls: number, errors: number, p50Ms: number | undefined,
 *   p99Ms: number | undefined, lastAt: number
 * }} ToolStats
 * @typedef {{ start: number, calls: number, errors: number, p50Ms: number, p99Ms: number }} Bucket
 * @typedef {{
 *   now: number, windowMs: number, bucketMs: number,
 *   gateway: { hosts: number, sessions: number, listeners: number, calls: number },
 *   hosts: Array<HostRow>, tools: Array<ToolStats>, series: Record<string, Array<Bucket>>
 * }} MetricsEvent
 */

const SVG = "http://www.w3.org/2000/svg"

/**
 * An element by id.
 * @param {string} id
 * @returns {HTMLElement}
 */
const byId = (id) => {
  const found = document.getElementById(id)
  if (found === null) throw new Error(\`the page has no #\${id}\`)
  return found
}

/**
 * A new element with its text (never parsed as HTML) and attributes.
 * @param {string} tag
 * @param {Record<string, string>} [attributes]
 * @param {Array<Node | string>} [children]
 * @returns {HTMLElement}
 */
const el = (tag, attributes = {}, children = []) => {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value)
  for (const child of children) node.append(child)
  return node
}

/**
 * A duration for people: \`45 s\`, \`3 min 05 s\`, \`2 h 10 min\`, \`3 d 4 h\`.
 * @param {number} ms
 */
const duration = (ms) => {
  const s = Math.max(0, Math.floor(ms / 1000))
  if (s < 60) return \`\${s} s\`
  const m = Math.floor(s / 60)
  if (m < 60) return s % 60 === 0 ? \`\${m} min\` : \`\${m} min \${String(s % 60).padStart(2, "0")} s\`
  const h = Math.floor(m / 60)
  if (h < 24) return \`\${h} h \${String(m % 60).padStart(2, "0")} min\`
  return \`\${Math.floor(h / 24)} d \${h % 24} h\`
}

/**
 * A latency: \`0.42 ms\`, \`12 ms\`, \`1.3 s\`.
 * @param {number | undefined} ms
 */
const latency = (ms) =>
  ms === undefined
    ? "—"
    : ms < 10
    ? \`\${ms.toFixed(2)} ms\`
    : ms < 1000
    ? \`\${Math.round(ms)} ms\`
    : \`\${(ms / 1000).toFixed(1)} s\`

/**
 * A clock time: \`14:03:27\`.
 * @param {number} at
 */
const clockTime = (at) => new Date(at).toLocaleTimeString([], { hour12: false })

/**
 * \`n\` and its noun, the number in a span of its own (\`data-col\`).
 * @param {number} n
 * @param {string} noun
 */
const counted = (n, noun) =>
  el("span", {}, [el("span", { "data-col": \`\${noun}s\` }, [String(n)]), \` \${noun}\${n === 1 ? "" : "s"}\`])

/**
 * What a ready server offers: \`10 tools\`, then its resources and prompts when it declares them.
 * @param {ServerRow} row
 * @returns {Array<Node | string>}
 */
const offers = (row) => {
  if (row.tools === undefined) return ["—"]
  /** @type {Array<Node | string>} */
  const parts = [counted(row.tools, "tool")]
  if (row.resources !== undefined) parts.push(", ", counted(row.resources, "resource"))
  if (row.prompts !== undefined) parts.push(", ", counted(row.prompts, "prompt"))
  return parts
}

// ---------------------------------------------------------------------------------------------------------------------
// The gateway's clock: each event says its \`now\`; between events the page counts from there.

let serverNow = 0
let receivedAt = 0
/** @param {number} now */
const syncClock = (now) => {
  serverNow = now
  receivedAt = performance.now()
}
const now = () => serverNow + (performance.now() - receivedAt)

// ---------------------------------------------------------------------------------------------------------------------
// Rendering.

/** @type {StateEvent | undefined} */
let lastState
/** @type {MetricsEvent | undefined} */
let lastMetrics

/**
 * What the row says of reconnection.
 * @param {ServerRow} row
 */
const reconnection = (row) => {
  if (row.gaveUp) {
    return row.attempt > 0
      ? \`gave up after \${row.attempt} attempt\${row.attempt === 1 ? "" : "s"}\`
      : "not retried"
  }
  if (row.attempt === 0) return "—"
  const attempt = \`attempt \${row.attempt}\${row.maxAttempts === undefined ? "" : \`/\${row.maxAttempts}\`}\`
  if (row.nextRetryAt === undefined) return attempt
  const wait = row.nextRetryAt - now()
  return \`\${attempt}, next \${wait > 0 ? \`in \${duration(wait + 999)}\` : "now"} (\${clockTime(row.nextRetryAt)})\`
}

/**
 * How long the server has been in its state.
 * @param {ServerRow} row
 */
const inState = (row) => \`\${row.state === "ready" ? "up " : ""}\${duration(now() - row.since)}\`

/**
 * A server's latency chart over the window: p50 (solid) and p99 (dashed), one point per bucket with calls.
 * @param {string} server
 */
const chart = (server) => {
  const metrics = lastMetrics
  const buckets = metrics?.series[server] ?? []
  if (metrics === undefined || buckets.length === 0) return el("span", { class: "muted" }, ["no calls"])
  const width = 160
  const height = 40
  const from = metrics.now - metrics.windowMs
  const top = Math.max(...buckets.map((b) => b.p99Ms), 1)
  /** @param {number} start */
  const x = (start) => (((start + metrics.bucketMs / 2 - from) / metrics.windowMs) * width).toFixed(1)
  /** @param {number} ms */
  const y = (ms) => (height - 2 - (ms / top) * (height - 4)).toFixed(1)
  const calls = buckets.reduce((sum, b) => sum + b.calls, 0)
  const lastBucket = buckets[buckets.length - 1]
  const label = \`Latency of \${server} over the last \${duration(metrics.windowMs)}: \${calls} calls; latest p50 \${
    latency(lastBucket?.p50Ms)
  }, p99 \${latency(lastBucket?.p99Ms)}; highest p99 \${latency(top)}\`
  const svg = document.createElementNS(SVG, "svg")
  svg.setAttribute("class", "chart")
  svg.setAttribute("viewBox", \`0 0 \${width} \${height}\`)
  svg.setAttribute("role", "img")
  svg.setAttribute("aria-label", label)
  const title = document.createElementNS(SVG, "title")
  title.textContent = label
  svg.append(title)
  const axis = document.createElementNS(SVG, "line")
  axis.setAttribute("x1", "0")
  axis.setAttribute("x2", String(width))
  axis.setAttribute("y1", String(height - 1))
  axis.setAttribute("y2", String(height - 1))
  axis.setAttribute("class", "axis")
  svg.append(axis)
  for (const [name, pick] of /** @type {const} */ ([["p99", "p99Ms"], ["p50", "p50Ms"]])) {
    const only = buckets.length === 1 ? buckets[0] : undefined
    const line = document.createElementNS(SVG, only === undefined ? "polyline" : "circle")
    line.setAttribute("class", name)
    if (only !== undefined) {
      line.setAttribute("cx", x(only.start))
      line.setAttribute("cy", y(only[pick]))
      line.setAttribute("r", "2")
    } else {
      line.setAttribute("points", buckets.map((b) => \`\${x(b.start)},\${y(b[pick])}\`).join(" "))
    }
    svg.append(line)
  }
  return el("span", {}, [
    svg,
    el("span", { class: "legend" }, [
      el("span", { class: "key-p50" }, [\`p50 \${latency(lastBucket?.p50Ms)}\`]),
      " · ",
      el("span", { class: "key-p99" }, [\`p99 \${latency(lastBucket?.p99Ms)}\`])
    ])
  ])
}

const renderServers = () => {
  const state = lastState
  if (state === undefined) return
  const rows = state.servers.map((row) => {
    const name = el("th", { scope: "row" }, [row.name])
    if (row.url !== undefined) name.append(el("span", { class: "url" }, [row.url]))
    if (row.pid !== undefined) name.append(el("span", { class: "url", "data-col": "pid" }, [\`pid \${row.pid}\`]))
    const protocol = row.era === undefined ? "" : row.era === "modern" ? \`\${row.version} (modern)\` : \`\${row.version}\`
    return el("tr", { "data-server": row.name, "data-state": row.state }, [
      name,
      el("td", { "data-col": "state" }, [el("span", { class: "state", "data-state": row.state }, [row.state])]),
      el("td", { "data-col": "transport" }, [
        row.transport,
        el("span", { class: "url", "data-col": "protocol" }, [protocol])
      ]),
      el("td", { "data-col": "offers" }, offers(row)),
      el("td", { "data-col": "reconnection", "data-tick": "reconnection" }, [reconnection(row)]),
      el("td", { "data-col": "since", "data-tick": "since" }, [inState(row)]),
      el("td", { "data-col": "latency" }, [chart(row.name)]),
      el("td", { "data-col": "error", class: "error-text" }, [row.lastError ?? "—"])
    ])
  })
  byId("servers").querySelector("tbody")?.replaceChildren(...rows)
}

/** Re-renders what depends on the time only (uptime, the next retry), once a second. */
const tick = () => {
  const state = lastState
  if (state === undefined) return
  for (const row of state.servers) {
    const tr = document.querySelector(\`tr[data-server="\${CSS.escape(row.name)}"]\`)
    if (tr === null) continue
    const since = tr.querySelector("[data-tick=since]")
    if (since !== null) since.textContent = inState(row)
    const retry = tr.querySelector("[data-tick=reconnection]")
    if (retry !== null) retry.textContent = reconnection(row)
  }
  updated()
}

let lastEventAt = 0
const updated = () => {
  byId("updated").textContent = lastEventAt === 0
    ? "no update yet"
    : \`last update \${duration(performance.now() - lastEventAt)} ago (\${
      clockTime(Date.now() - (performance.now() - lastEventAt))
    })\`
}

/** @param {StateEvent} event */
const onState = (event) => {
  syncClock(event.now)
  lastState = event
  byId("summary").textContent = event.summary
  byId("status-text").textContent = event.text
  renderServers()
}

/** @param {MetricsEvent} event */
const onMetrics = (event) => {
  syncClock(event.now)
  lastMetrics = event
  byId("window").textContent = duration(event.windowMs)
  const g = event.gateway
  byId("gateway").textContent = \`\${g.hosts} host(s) connected, \${g.sessions} HTTP session(s), \${g.listeners} listen \` +
    \`stream(s), \${g.calls} call(s) in flight\`
  const hosts = event.hosts.map((host) =>
    el("tr", {}, [
      el("th", { scope: "row" }, [host.name ?? "(no clientInfo)"]),
      el("td", {}, [host.version ?? "—"]),
      el("td", {}, [host.profile ?? "(all servers)"]),
      el("td", {}, [\`\${host.protocolVersion}\${host.era === "modern" ? " (modern)" : ""}\`]),
      el("td", {}, [host.transport]),
      el("td", { class: "num" }, [String(host.inFlight)])
    ])
  )
  if (hosts.length === 0) {
    hosts.push(el("tr", {}, [el("td", { colspan: "6", class: "muted" }, ["No host is connected."])]))
  }
  byId("hosts").querySelector("tbody")?.replaceChildren(...hosts)
  const tools = event.tools.map((tool) =>
    el("tr", { "data-tool": \`\${tool.server}/\${tool.tool}\` }, [
      el("td", {}, [tool.server]),
      el("th", { scope: "row" }, [tool.tool]),
      el("td", { class: "num", "data-col": "calls" }, [String(tool.calls)]),
      el("td", { class: "num", "data-col": "errors" }, [String(tool.errors)]),
      el("td", { class: "num", "data-col": "p50" }, [latency(tool.p50Ms)]),
      el("td", { class: "num", "data-col": "p99" }, [latency(tool.p99Ms)])
    ])
  )
  if (tools.length === 0) {
    tools.push(el("tr", {}, [el("td", { colspan: "6", class: "muted" }, ["No call in the window."])]))
  }
  byId("tools").querySelector("tbody")?.replaceChildren(...tools)
  renderServers()
}

// ---------------------------------------------------------------------------------------------------------------------
// The connection.

/**
 * @param {"connecting" | "live" | "lost" | "signed-out"} state
 * @param {string} text
 */
const connection = (state, text) => {
  const node = byId("connection")
  node.dataset["connection"] = state
  node.textContent = text
}

/** @type {EventSource | undefined} */
let source
/** @type {number | undefined} */
let lostAt
let retryMs = 1000

const showSignIn = (/** @type {string} */ why) => {
  source?.close()
  source = undefined
  connection("signed-out", "Signed out")
  byId("fleet").hidden = true
  byId("signout").hidden = true
  byId("signin").hidden = false
  byId("signin-error").textContent = why
  byId("token").focus()
}

const lost = () => {
  if (lostAt === undefined) lostAt = Date.now()
  connection("lost", \`Stream lost at \${clockTime(lostAt)}; reconnecting…\`)
}

/** The stream was closed for good (the gateway refused it): signed out, or try again later. */
const recheck = () => {
  fetch("/status/session", { cache: "no-store" }).then(
    (response) => {
      if (response.status === 401) showSignIn("The gateway no longer accepts this sign-in: sign in again.")
      else retry()
    },
    () => retry()
  )
}

const retry = () => {
  lost()
  setTimeout(connect, retryMs)
  retryMs = Math.min(retryMs * 2, 30_000)
}

const connect = () => {
  source?.close()
  byId("signin").hidden = true
  byId("fleet").hidden = false
  const stream = new EventSource("/status/events")
  source = stream
  stream.addEventListener("open", () => {
    retryMs = 1000
    connection(
      "live",
      lostAt === undefined ? "Live" : \`Live again (the stream was lost for \${duration(Date.now() - lostAt)})\`
    )
    lostAt = undefined
  })
  stream.addEventListener("error", () => {
    if (stream !== source) return
    if (stream.readyState === EventSource.CLOSED) recheck()
    else lost()
  })
  stream.addEventListener("state", (event) => {
    lastEventAt = performance.now()
    onState(JSON.parse(/** @type {MessageEvent<string>} */ (event).data))
    updated()
  })
  stream.addEventListener("metrics", (event) => {
    lastEventAt = performance.now()
    onMetrics(JSON.parse(/** @type {MessageEvent<string>} */ (event).data))
    updated()
  })
}

/**
 * Trades \`token\` for the page's cookie.
 * @param {string} token
 */
const signIn = (token) =>
  fetch("/status/session", { method: "POST", headers: { authorization: \`Bearer \${token}\` }, cache: "no-store" }).then(
    (response) => {
      if (!response.ok) {
        showSignIn(response.status === 401 ? "That token was refused." : \`The gateway answered \${response.status}.\`)
        return
      }
      byId("signout").hidden = false
      connect()
    },
    () => showSignIn("The gateway cannot be reached.")
  )

/** The token in the URL's fragment (\`#token=…\`), removed from the address bar and the history entry at once. */
const takeFragmentToken = () => {
  if (location.hash.length <= 1) return undefined
  const token = new URLSearchParams(location.hash.slice(1)).get("token") ?? undefined
  history.replaceState(null, "", \`\${location.pathname}\${location.search}\`)
  return token === "" ? undefined : token
}

const start = () => {
  const form = /** @type {HTMLFormElement} */ (byId("signin"))
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    const input = /** @type {HTMLInputElement} */ (byId("token"))
    const token = input.value.trim()
    input.value = ""
    if (token !== "") signIn(token)
  })
  byId("signout").addEventListener("click", () => {
    fetch("/status/session", { method: "DELETE" }).finally(() => showSignIn(""))
  })
  setInterval(tick, 1000)
  const token = takeFragmentToken()
  if (token !== undefined) {
    signIn(token)
    return
  }
  fetch("/status/session", { cache: "no-store" }).then(
    (response) =>
      response.json().then(
        /** @param {{ signedIn: boolean, required: boolean }} session */
        (session) => {
          if (!session.signedIn) {
            showSignIn("")
            return
          }
          byId("signout").hidden = !session.required
          connect()
        }
      ),
    () => showSignIn("The gateway cannot be reached.")
  )
}

start()
`
