// @ts-check
/**
 * The status page's script: signs in when the gateway asks for its token, then renders the `state` and `metrics`
 * events of `/status/events` (Server-Sent Events) as they come. Plain JavaScript, served as it is written (type-checked
 * by tsc through the JSDoc below: tsconfig.json beside it); no library, no inline code, text only (`textContent`,
 * never HTML from the gateway).
 *
 * The token is taken from the sign-in form, or once from the URL's fragment (`/#token=…`, which the browser never
 * sends: it is removed from the address bar at once); it is sent once in an `Authorization` header and traded for an
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
  if (found === null) throw new Error(`the page has no #${id}`)
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
 * A duration for people: `45 s`, `3 min 05 s`, `2 h 10 min`, `3 d 4 h`.
 * @param {number} ms
 */
const duration = (ms) => {
  const s = Math.max(0, Math.floor(ms / 1000))
  if (s < 60) return `${s} s`
  const m = Math.floor(s / 60)
  if (m < 60) return s % 60 === 0 ? `${m} min` : `${m} min ${String(s % 60).padStart(2, "0")} s`
  const h = Math.floor(m / 60)
  if (h < 24) return `${h} h ${String(m % 60).padStart(2, "0")} min`
  return `${Math.floor(h / 24)} d ${h % 24} h`
}

/**
 * A latency: `0.42 ms`, `12 ms`, `1.3 s`.
 * @param {number | undefined} ms
 */
const latency = (ms) =>
  ms === undefined
    ? "—"
    : ms < 10
    ? `${ms.toFixed(2)} ms`
    : ms < 1000
    ? `${Math.round(ms)} ms`
    : `${(ms / 1000).toFixed(1)} s`

/**
 * A clock time: `14:03:27`.
 * @param {number} at
 */
const clockTime = (at) => new Date(at).toLocaleTimeString([], { hour12: false })

/**
 * `n` and its noun, the number in a span of its own (`data-col`).
 * @param {number} n
 * @param {string} noun
 */
const counted = (n, noun) =>
  el("span", {}, [el("span", { "data-col": `${noun}s` }, [String(n)]), ` ${noun}${n === 1 ? "" : "s"}`])

/**
 * What a ready server offers: `10 tools`, then its resources and prompts when it declares them.
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
// The gateway's clock: each event says its `now`; between events the page counts from there.

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
      ? `gave up after ${row.attempt} attempt${row.attempt === 1 ? "" : "s"}`
      : "not retried"
  }
  if (row.attempt === 0) return "—"
  const attempt = `attempt ${row.attempt}${row.maxAttempts === undefined ? "" : `/${row.maxAttempts}`}`
  if (row.nextRetryAt === undefined) return attempt
  const wait = row.nextRetryAt - now()
  return `${attempt}, next ${wait > 0 ? `in ${duration(wait + 999)}` : "now"} (${clockTime(row.nextRetryAt)})`
}

/**
 * How long the server has been in its state.
 * @param {ServerRow} row
 */
const inState = (row) => `${row.state === "ready" ? "up " : ""}${duration(now() - row.since)}`

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
  const label = `Latency of ${server} over the last ${duration(metrics.windowMs)}: ${calls} calls; latest p50 ${
    latency(lastBucket?.p50Ms)
  }, p99 ${latency(lastBucket?.p99Ms)}; highest p99 ${latency(top)}`
  const svg = document.createElementNS(SVG, "svg")
  svg.setAttribute("class", "chart")
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`)
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
      line.setAttribute("points", buckets.map((b) => `${x(b.start)},${y(b[pick])}`).join(" "))
    }
    svg.append(line)
  }
  return el("span", {}, [
    svg,
    el("span", { class: "legend" }, [
      el("span", { class: "key-p50" }, [`p50 ${latency(lastBucket?.p50Ms)}`]),
      " · ",
      el("span", { class: "key-p99" }, [`p99 ${latency(lastBucket?.p99Ms)}`])
    ])
  ])
}

const renderServers = () => {
  const state = lastState
  if (state === undefined) return
  const rows = state.servers.map((row) => {
    const name = el("th", { scope: "row" }, [row.name])
    if (row.url !== undefined) name.append(el("span", { class: "url" }, [row.url]))
    if (row.pid !== undefined) name.append(el("span", { class: "url", "data-col": "pid" }, [`pid ${row.pid}`]))
    const protocol = row.era === undefined ? "" : row.era === "modern" ? `${row.version} (modern)` : `${row.version}`
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
    const tr = document.querySelector(`tr[data-server="${CSS.escape(row.name)}"]`)
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
    : `last update ${duration(performance.now() - lastEventAt)} ago (${
      clockTime(Date.now() - (performance.now() - lastEventAt))
    })`
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
  byId("gateway").textContent = `${g.hosts} host(s) connected, ${g.sessions} HTTP session(s), ${g.listeners} listen ` +
    `stream(s), ${g.calls} call(s) in flight`
  const hosts = event.hosts.map((host) =>
    el("tr", {}, [
      el("th", { scope: "row" }, [host.name ?? "(no clientInfo)"]),
      el("td", {}, [host.version ?? "—"]),
      el("td", {}, [host.profile ?? "(all servers)"]),
      el("td", {}, [`${host.protocolVersion}${host.era === "modern" ? " (modern)" : ""}`]),
      el("td", {}, [host.transport]),
      el("td", { class: "num" }, [String(host.inFlight)])
    ])
  )
  if (hosts.length === 0) {
    hosts.push(el("tr", {}, [el("td", { colspan: "6", class: "muted" }, ["No host is connected."])]))
  }
  byId("hosts").querySelector("tbody")?.replaceChildren(...hosts)
  const tools = event.tools.map((tool) =>
    el("tr", { "data-tool": `${tool.server}/${tool.tool}` }, [
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
  connection("lost", `Stream lost at ${clockTime(lostAt)}; reconnecting…`)
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
      lostAt === undefined ? "Live" : `Live again (the stream was lost for ${duration(Date.now() - lostAt)})`
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
 * Trades `token` for the page's cookie.
 * @param {string} token
 */
const signIn = (token) =>
  fetch("/status/session", { method: "POST", headers: { authorization: `Bearer ${token}` }, cache: "no-store" }).then(
    (response) => {
      if (!response.ok) {
        showSignIn(response.status === 401 ? "That token was refused." : `The gateway answered ${response.status}.`)
        return
      }
      byId("signout").hidden = false
      connect()
    },
    () => showSignIn("The gateway cannot be reached.")
  )

/** The token in the URL's fragment (`#token=…`), removed from the address bar and the history entry at once. */
const takeFragmentToken = () => {
  if (location.hash.length <= 1) return undefined
  const token = new URLSearchParams(location.hash.slice(1)).get("token") ?? undefined
  history.replaceState(null, "", `${location.pathname}${location.search}`)
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
