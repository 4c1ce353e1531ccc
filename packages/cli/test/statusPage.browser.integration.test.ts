/**
 * The status page of `mcp-fleet serve --http`, in a real browser: Debian's Chromium (`/usr/bin/chromium`, never a
 * downloaded one), driven by playwright-core, against the real CLI in front of fake servers. One browser for the file.
 *
 * - without the bearer token the page shows its sign-in form and no data; the data routes answer 401; a wrong token
 *   is refused;
 * - with the token (in the URL's fragment, traded for the page's cookie) the rows match the gateway's status text,
 *   hosts show by clientInfo and profile, calls by tool with their errors, a chart per server;
 * - a killed server turns offline on the page within a second, and ready again after its reconnection;
 * - an edit of the config file adds a row;
 * - the gateway going away shows as a lost stream, and its return as live again;
 * - no secret (the token, a server's env value, a remote server's header, a host's session id) is in the DOM or in any
 *   response the browser received (bodies, headers, each SSE message); the page breaks no rule of its CSP;
 * - readable at 200 % zoom (no page-wide horizontal scrolling).
 *
 * A screenshot of each page is written under `.artifacts/` (or `$MCP_FLEET_ARTIFACTS`), and its path printed.
 */
import { httpServerPath } from "@mcp-fleet/fake-server"
import type { ChildProcess } from "node:child_process"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core"
import { chromium } from "playwright-core"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { BIN, childProcesses, fakeServer } from "./CliProcess.ts"

/**
 * The browser's globals as the page functions below use them. Those functions run in the page, not here; the CLI's
 * program has no DOM library (it would clash with Node's stream types), so the little they touch is declared here.
 */
interface PageElement {
  readonly textContent: string | null
  readonly children: ArrayLike<PageElement>
  readonly caption?: PageElement | null
  readonly value?: string
  readonly getAttribute: (name: string) => string | null
  readonly querySelector: (selector: string) => PageElement | null
}
declare const document: {
  readonly documentElement: { readonly scrollWidth: number; readonly outerHTML: string }
  readonly querySelector: (selector: string) => PageElement | null
  readonly querySelectorAll: (selector: string) => ArrayLike<PageElement>
  readonly getElementById: (id: string) => PageElement | null
  readonly addEventListener: (
    type: "securitypolicyviolation",
    listener: (event: { readonly violatedDirective: string; readonly blockedURI: string }) => void
  ) => void
}
declare const window: { readonly innerWidth: number; cspViolations?: Array<string> }

const CHROMIUM = process.env["MCP_FLEET_CHROMIUM"] ?? "/usr/bin/chromium"
// Outside CI a machine without Chromium skips this file; in CI a missing browser fails it (`.ci/run` installs it).
const skip = !existsSync(CHROMIUM) && process.env["CI"] !== "true"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const ARTIFACTS = process.env["MCP_FLEET_ARTIFACTS"] ?? join(ROOT, ".artifacts")

const TOKEN = "page-token-5f1c9a7e3b2d4c60"
const ENV_SECRET = "env-secret-8d2e41b7c9"
const HEADER_SECRET = "header-secret-3a6f0c2d9e"
const TOKEN_ENV = "MCP_FLEET_STATUS_PAGE_TEST_TOKEN"

/** A running `mcp-fleet serve --http`. */
interface Gateway {
  readonly child: ChildProcess
  readonly base: string
  readonly port: number
  readonly stop: () => Promise<void>
}

/** Resolves with the first stdout line that satisfies `predicate` (rejects when the process ends first). */
const lineOf = (child: ChildProcess, predicate: (line: string) => boolean, what: string) =>
  new Promise<string>((resolve, reject) => {
    let buffer = ""
    let stderr = ""
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const onData = (chunk: string) => {
      buffer += chunk
      const line = buffer.split("\n").find(predicate)
      if (line !== undefined) {
        child.stdout?.off("data", onData)
        resolve(line)
      }
    }
    child.stdout?.setEncoding("utf8").on("data", onData)
    child.once(
      "close",
      (code) => reject(new Error(`${what} exited (${code}) before it was ready:\n${buffer}\n${stderr}`))
    )
  })

/** Stops a child by its pid: SIGTERM, SIGKILL after 5 s. */
const stopChild = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000)
    child.once("close", () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill("SIGTERM")
  })

/** `mcp-fleet serve --http 127.0.0.1:<port>` with the token, on `config`. */
const serve = async (config: string, profiles: string, port = 0): Promise<Gateway> => {
  const child = spawn(
    process.execPath,
    [BIN, "serve", "--http", `127.0.0.1:${port}`, "--config", config, "--profiles", profiles, "--token-env", TOKEN_ENV],
    { env: { ...process.env, [TOKEN_ENV]: TOKEN }, stdio: ["ignore", "pipe", "pipe"] }
  )
  const line = await lineOf(child, (l) => l.startsWith("{\"url\""), "mcp-fleet serve")
  const url = new URL(JSON.parse(line).url as string)
  return {
    child,
    base: url.origin,
    port: Number(url.port),
    stop: () => stopChild(child)
  }
}

/** The fake MCP server over HTTP (the remote server of the fleet). */
const fakeHttp = async () => {
  const child = spawn(process.execPath, [httpServerPath], { stdio: ["pipe", "pipe", "pipe"] })
  const line = await lineOf(child, (l) => l.startsWith("{\"url\""), "the fake HTTP server")
  return { child, url: JSON.parse(line).url as string }
}

/** A 2025-era host over HTTP with the token: `initialize` (with its clientInfo), then calls. */
const host = async (base: string, name: string, profile?: string) => {
  const endpoint = `${base}/mcp${profile === undefined ? "" : `/${profile}`}`
  let session: string | undefined
  let id = 0
  const send = async (message: Record<string, unknown>) => {
    const response = await fetch(endpoint, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        accept: "application/json",
        ...(session === undefined ? {} : { "mcp-session-id": session })
      },
      body: JSON.stringify({ jsonrpc: "2.0", ...message })
    })
    session ??= response.headers.get("mcp-session-id") ?? undefined
    const text = await response.text()
    return text === "" ? undefined : JSON.parse(text) as Record<string, unknown>
  }
  await send({
    id: ++id,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name, version: "1.2.3" } }
  })
  await send({ method: "notifications/initialized" })
  return {
    session: () => session!,
    call: (tool: string, args: Record<string, unknown> = {}) =>
      send({ id: ++id, method: "tools/call", params: { name: tool, arguments: args } })
  }
}

/** The status text the gateway gives `/readyz`, without the gateway's own lines. */
const statusLines = async (base: string) => {
  const response = await fetch(`${base}/readyz`, { headers: { authorization: `Bearer ${TOKEN}` } })
  const text = await response.text()
  const lines = text.trimEnd().split("\n")
  const end = lines.findIndex((line) => line.startsWith("gateway"))
  return lines.slice(0, end === -1 ? lines.length : end).join("\n")
}

/** Everything a page received: response bodies and headers, and each SSE message (through the DevTools protocol). */
interface Capture {
  readonly responses: Array<{ url: string; status: number; headers: Record<string, string>; body: string }>
  readonly requests: Array<{ url: string; headers: Record<string, string> }>
  readonly events: Array<{ name: string; data: string }>
  readonly console: Array<string>
}

const capture = async (page: Page): Promise<Capture> => {
  const captured: Capture = { responses: [], requests: [], events: [], console: [] }
  const cdp: CDPSession = await page.context().newCDPSession(page)
  await cdp.send("Network.enable")
  cdp.on("Network.eventSourceMessageReceived", (event) => {
    captured.events.push({ name: event.eventName, data: event.data })
  })
  page.on("request", (request) => {
    captured.requests.push({ url: request.url(), headers: request.headers() })
  })
  page.on("response", (response) => {
    const entry = { url: response.url(), status: response.status(), headers: response.headers(), body: "" }
    captured.responses.push(entry)
    // An event stream never ends: its messages are read above, one by one.
    if (response.headers()["content-type"]?.includes("text/event-stream") !== true) {
      response.text().then((body) => (entry.body = body), () => undefined)
    }
  })
  page.on("console", (message) => captured.console.push(`${message.type()}: ${message.text()}`))
  // CSP violations are reported in the page; the init script runs outside the page's CSP.
  await page.addInitScript(() => {
    const violations: Array<string> = []
    window.cspViolations = violations
    document.addEventListener("securitypolicyviolation", (event) => {
      violations.push(`${event.violatedDirective} ${event.blockedURI}`)
    })
  })
  return captured
}

/** Waits, in the browser, until `server`'s row says `state` (the browser's own wait, on each frame). */
const rowState = (page: Page, server: string, state: string, timeout: number) =>
  page.waitForFunction(
    ([name, wanted]) => document.querySelector(`tr[data-server="${name}"]`)?.getAttribute("data-state") === wanted,
    [server, state] as const,
    { timeout, polling: "raf" }
  )

const screenshot = async (page: Page, name: string) => {
  await mkdir(ARTIFACTS, { recursive: true })
  const path = join(ARTIFACTS, name)
  await page.screenshot({ path, fullPage: true })
  process.stdout.write(`status page screenshot: ${path}\n`)
  return path
}

describe.skipIf(skip)("the status page in Chromium", { timeout: 120_000 }, () => {
  let dir: string
  let config: string
  let profiles: string
  let remote: Awaited<ReturnType<typeof fakeHttp>>
  let gateway: Gateway
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let captured: Capture
  const sessions: Array<string> = []

  const servers = (extra: Record<string, unknown> = {}) => ({
    mcpServers: {
      alpha: fakeServer({ modes: ["features"] }),
      beta: fakeServer({ modes: ["leak-env"] }, { env: { API_KEY: ENV_SECRET } }),
      broken: { command: join(dir, "no-such-server") },
      remote: { url: remote.url, headers: { Authorization: `Bearer ${HEADER_SECRET}` } },
      ...extra
    }
  })

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-fleet-status-page-"))
    remote = await fakeHttp()
    config = join(dir, "mcp.json")
    profiles = join(dir, "profiles.json")
    await writeFile(config, JSON.stringify(servers(), null, 2))
    await writeFile(profiles, JSON.stringify({ profiles: { "alpha-only": { servers: ["alpha"] } } }))
    gateway = await serve(config, profiles)
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      chromiumSandbox: false,
      args: [
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    })
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await gateway?.stop()
    if (remote !== undefined) await stopChild(remote.child)
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  it("without the token: the sign-in form and no data; the data routes answer 401; a wrong token is refused", async () => {
    const stranger = await browser.newContext()
    try {
      const tab = await stranger.newPage()
      const seen = await capture(tab)
      await tab.goto(`${gateway.base}/`)
      await tab.locator("#signin").waitFor({ state: "visible" })
      assert.isTrue(await tab.locator("#fleet").isHidden())
      assert.strictEqual(await tab.locator("#connection").getAttribute("data-connection"), "signed-out")
      assert.strictEqual(await tab.locator("tr[data-server]").count(), 0)
      for (const path of ["/status/events", "/status/session", "/mcp", "/readyz"]) {
        assert.strictEqual((await fetch(`${gateway.base}${path}`)).status, 401, path)
      }
      const forged = await fetch(`${gateway.base}/status/events`, {
        headers: { cookie: `mcp_fleet_status=v1.${Date.now() + 60_000}.${"A".repeat(43)}` }
      })
      assert.strictEqual(forged.status, 401)
      await tab.fill("#token", `${TOKEN}-wrong`)
      await tab.click("button[type=submit]")
      await tab.locator("#signin-error", { hasText: "That token was refused." }).waitFor()
      assert.deepStrictEqual(await stranger.cookies(), [])
      assert.strictEqual(await tab.inputValue("#token"), "")
      assert.strictEqual(await tab.locator("tr[data-server]").count(), 0)
      assert.isFalse(seen.events.length > 0, "no event reached a page without the token")
    } finally {
      await stranger.close()
    }
  })

  it("with the token: the rows match statusLines(), hosts by clientInfo and profile, calls by tool", async () => {
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } })
    page = await context.newPage()
    captured = await capture(page)
    await page.goto(`${gateway.base}/#token=${TOKEN}`)
    await page.locator("#connection[data-connection=live]").waitFor()
    assert.strictEqual(new URL(page.url()).hash, "", "the token left the address bar")
    for (const [server, state] of [["alpha", "ready"], ["beta", "ready"], ["remote", "ready"], ["broken", "offline"]]) {
      await rowState(page, server!, state!, 30_000)
    }
    const cookies = await context.cookies()
    assert.strictEqual(cookies.length, 1)
    assert.include(cookies[0]!, { name: "mcp_fleet_status", httpOnly: true, sameSite: "Strict", path: "/status" })
    assert.notInclude(cookies[0]!.value, TOKEN)

    const first = await host(gateway.base, "status-page-test-host")
    const second = await host(gateway.base, "profiled-host", "alpha-only")
    sessions.push(first.session(), second.session())
    for (let i = 0; i < 3; i++) await first.call("alpha__echo", { i })
    for (let i = 0; i < 2; i++) await first.call("beta__echo", { i })
    await second.call("alpha__echo", { from: "profile" })
    await page.waitForFunction(
      () => {
        const calls = (tool: string, col: string) =>
          document.querySelector(`tr[data-tool="${tool}"] [data-col=${col}]`)?.textContent
        return calls("alpha/echo", "calls") === "4" && calls("beta/echo", "errors") === "2" &&
          document.querySelectorAll("#hosts tbody tr").length === 2
      },
      undefined,
      { timeout: 10_000, polling: "raf" }
    )
    const hosts = await page.evaluate(() =>
      Array.from(document.querySelectorAll("#hosts tbody tr"), (row) => Array.from(row.children, (c) => c.textContent))
    )
    assert.deepStrictEqual(hosts, [
      ["profiled-host", "1.2.3", "alpha-only", "2025-11-25", "http", "0"],
      ["status-page-test-host", "1.2.3", "(all servers)", "2025-11-25", "http", "0"]
    ])
    assert.strictEqual(await page.locator("tr[data-tool=\"beta/echo\"] [data-col=calls]").textContent(), "2")
    assert.match(
      await page.locator("tr[data-tool=\"alpha/echo\"] [data-col=p50]").textContent() ?? "",
      /^\d+(\.\d+)? m?s$/
    )
    assert.strictEqual(await page.locator("tr[data-server=alpha] svg.chart").count(), 1)

    // The fleet is settled (no row is starting or reconnecting): the page says what the gateway's ledger says.
    const text = await statusLines(gateway.base)
    await page.waitForFunction((expected) => document.getElementById("status-text")?.textContent === expected, text, {
      timeout: 5_000,
      polling: "raf"
    })
    assert.strictEqual(await page.locator("#summary").textContent(), text.split("\n")[0])
    const rows = await page.evaluate(() =>
      Array.from(document.querySelectorAll("#servers tbody tr"), (tr) => ({
        name: tr.getAttribute("data-server"),
        state: tr.querySelector("[data-col=state]")?.textContent,
        tools: tr.querySelector("[data-col=tools]")?.textContent,
        error: tr.querySelector("[data-col=error]")?.textContent
      }))
    )
    const lines = text.split("\n").slice(1)
    assert.deepStrictEqual(rows.map((row) => row.name), lines.map((line) => line.slice(0, line.indexOf(":"))))
    for (const [i, row] of rows.entries()) {
      const line = lines[i]!
      assert.isTrue(line.startsWith(`${row.name}: ${row.state}`), `${line} / ${row.state}`)
      if (row.state === "ready") assert.include(line, ` · ${row.tools} tool`)
      else assert.include(line, row.error!.slice(0, 100))
    }
    assert.match(rows.find((row) => row.name === "broken")!.error!, /could not be started/)
    await screenshot(page, "status-page.png")
  })

  it("a killed server turns offline on the page within a second, and ready again after its reconnection", async () => {
    const children = await childProcesses(gateway.child.pid!)
    const alpha = children.find((c) => c.args.includes("features"))!
    assert.isDefined(alpha, JSON.stringify(children))
    assert.strictEqual(await page.locator("tr[data-server=alpha] [data-col=pid]").textContent(), `pid ${alpha.pid}`)
    process.kill(alpha.pid, "SIGKILL")
    await rowState(page, "alpha", "offline", 1_000)
    await page.locator("tr[data-server=alpha] [data-col=reconnection]", { hasText: /attempt 1\/5, next in/ }).waitFor()
    await rowState(page, "alpha", "ready", 30_000)
  })

  it("an edit of the config file adds a row", async () => {
    await writeFile(config, JSON.stringify(servers({ gamma: fakeServer() }), null, 2))
    await rowState(page, "gamma", "ready", 30_000)
    assert.deepStrictEqual(
      await page.evaluate(() =>
        Array.from(document.querySelectorAll("#servers tbody tr"), (tr) => tr.getAttribute("data-server"))
      ),
      ["alpha", "beta", "broken", "gamma", "remote"]
    )
  })

  it("readable at 200 % zoom: the page does not scroll sideways; tables keep their captions and header scopes", async () => {
    const zoomed = await browser.newContext({ viewport: { width: 640, height: 800 }, deviceScaleFactor: 2 })
    try {
      const tab = await zoomed.newPage()
      await tab.goto(`${gateway.base}/#token=${TOKEN}`)
      await rowState(tab, "gamma", "ready", 10_000)
      const layout = await tab.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        width: window.innerWidth,
        captions: Array.from(document.querySelectorAll("table"), (t) => t.caption?.textContent?.trim() ?? ""),
        unscoped: document.querySelectorAll("th:not([scope])").length,
        stateTexts: Array.from(document.querySelectorAll("[data-col=state]"), (td) => td.textContent)
      }))
      assert.isAtMost(layout.scrollWidth, layout.width)
      assert.strictEqual(layout.captions.length, 3)
      for (const caption of layout.captions) assert.isAbove(caption.length, 10)
      assert.strictEqual(layout.unscoped, 0)
      assert.includeMembers(layout.stateTexts, ["ready", "offline"])
      await screenshot(tab, "status-page-200.png")
    } finally {
      await zoomed.close()
    }
  })

  it("the gateway going away shows as a lost stream; its return (same port, same token) as live again", async () => {
    const port = gateway.port
    await gateway.stop()
    await page.locator("#connection[data-connection=lost]").waitFor({ timeout: 10_000 })
    gateway = await serve(config, profiles, port)
    await page.locator("#connection[data-connection=live]").waitFor({ timeout: 30_000 })
    assert.match(await page.locator("#connection").textContent() ?? "", /^Live again/)
    await rowState(page, "gamma", "ready", 30_000)
  })

  it("no secret reached the browser: not in the DOM, any response, any SSE message; no CSP violation", async () => {
    const dom = await page.evaluate(() =>
      document.documentElement.outerHTML + Array.from(document.querySelectorAll("input"), (i) => i.value).join("")
    )
    const violations = await page.evaluate(() => window.cspViolations)
    assert.deepStrictEqual(violations, [])
    assert.isAbove(captured.events.length, 3)
    // The token left the browser once, in the header of the sign-in: in no URL, no other header, no other request.
    const signIns = captured.requests.filter((r) => r.headers["authorization"] !== undefined)
    assert.deepStrictEqual(signIns.map((r) => [r.url, r.headers["authorization"]]), [
      [`${gateway.base}/status/session`, `Bearer ${TOKEN}`]
    ])
    const received = [
      dom,
      ...captured.responses.map((r) => `${r.url} ${JSON.stringify(r.headers)} ${r.body}`),
      ...captured.events.map((e) => e.data),
      ...captured.requests.map((r) => {
        const { authorization: _, ...headers } = r.headers
        return `${r.url} ${JSON.stringify(headers)}`
      })
    ]
    for (const secret of [TOKEN, ENV_SECRET, HEADER_SECRET, ...sessions]) {
      const found = received.find((text) => text.includes(secret))
      assert.isUndefined(found, `a secret reached the browser: ${found?.slice(0, 200)}`)
    }
    // Referrer-Policy: the page's own requests say nothing of where they came from.
    for (const request of captured.requests) assert.isNotOk(request.headers["referer"], request.url)
    const page401 = captured.responses.filter((r) => r.status >= 400)
    assert.deepStrictEqual(page401, [])
    // Errors other than the network's while the gateway was away (a script error, a blocked resource).
    const errors = captured.console.filter((line) => line.startsWith("error") && !line.includes("net::ERR_"))
    assert.deepStrictEqual(errors, [])
  })
})
