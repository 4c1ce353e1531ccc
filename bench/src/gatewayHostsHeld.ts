/**
 * Issue 29's host cells: memory per connected host, and 1,000 concurrent HTTP hosts held by `mcp-fleet serve
 * --http` (in front of the stdio echo server), beside `mcp-proxy` and `supergateway` bridging the same server.
 *
 * A host here is what an editor window keeps open: a 2025-11-25 session (`initialize`, `notifications/initialized`)
 * and its `GET` stream, held open on a socket of its own. The memory is the resident set (`VmRSS`) of the serving
 * process and every process under it (a bridge that starts a server per session pays for it), read from /proc once
 * the hosts are open, against the same reading before the first; per host = the difference ÷ hosts.
 *
 * With the gateway it then checks that the hosts are held: every one calls `echo` once (100 at a time), and a
 * config edit (a second server) reaches every `GET` stream as `tools/list_changed` (the time from the edit to the
 * last one is reported). Not a test: nothing asserts a time. Processes are reaped at the end.
 *
 *   node bench/src/gatewayHostsHeld.ts [--hosts=1000] [--peer-hosts=100] [--targets=gateway,mcp-proxy,supergateway]
 *
 * @since 0.0.0
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { Agent, type IncomingMessage, request } from "node:http"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { freePort, start, stop, stopAll, untilListening } from "./ChildProcesses.ts"
import { echoServerPath } from "./EchoServer.ts"

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback
const HOSTS = Number(arg("hosts", "1000"))
const PEER_HOSTS = Number(arg("peer-hosts", "100"))

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const cli = here("../../packages/cli/bin/mcp-fleet.mjs")
const mcpProxy = here("../node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs")
const supergateway = here("../node_modules/supergateway/dist/index.js")

/** The resident set (KiB) of `pid` and every process under it. */
const treeRssKb = (pid: number): number => {
  let total = 0
  const visit = (p: number) => {
    try {
      const status = readFileSync(`/proc/${p}/status`, "utf8")
      total += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
      for (const task of readFileSync(`/proc/${p}/task/${p}/children`, "utf8").trim().split(/\s+/)) {
        if (task !== "") visit(Number(task))
      }
    } catch {
      // The process ended while it was read.
    }
  }
  visit(pid)
  return total
}

const processes = (pid: number): number => {
  let count = 0
  const visit = (p: number) => {
    count++
    for (const task of readFileSync(`/proc/${p}/task/${p}/children`, "utf8").trim().split(/\s+/)) {
      if (task !== "") visit(Number(task))
    }
  }
  visit(pid)
  return count
}

// -------------------------------------------------------------------------------------------------------------------
// Raw 2025-era hosts.

/** Every socket its own: a host is a connection, as an editor window's is. */
const agent = new Agent({ keepAlive: true, maxSockets: Infinity })

interface Answer {
  readonly status: number
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = request(url, {
      method: "POST",
      agent,
      headers: {
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": "2025-11-25",
        ...headers
      }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (text += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.once("error", reject)
    req.end(JSON.stringify(body))
  })

interface Host {
  readonly session: string
  /** Resolves with the time (performance.now()) the stream first carried `tools/list_changed`. */
  readonly listChanged: Promise<number>
  readonly close: () => void
}

const openHost = async (url: string, n: number): Promise<Host> => {
  const opened = await post(url, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: `held-host-${n}`, version: "1" } }
  })
  const session = opened.headers["mcp-session-id"]
  if (opened.status !== 200 || typeof session !== "string") {
    throw new Error(`host ${n}: initialize answered ${opened.status}: ${opened.body.slice(0, 200)}`)
  }
  await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": session })
  let close = () => {}
  const listChanged = new Promise<number>((resolve, reject) => {
    const req = request(url, {
      method: "GET",
      agent,
      headers: { accept: "text/event-stream", "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }
    }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`host ${n}: GET answered ${res.statusCode}`))
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        if (chunk.includes("notifications/tools/list_changed")) resolve(performance.now())
      })
    })
    req.once("error", () => {})
    req.end()
    close = () => req.destroy()
  })
  listChanged.catch(() => {})
  return { session, listChanged, close }
}

const callEcho = async (url: string, host: Host, name: string): Promise<void> => {
  const answer = await post(url, {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name, arguments: { payload: "held" } }
  }, { "mcp-session-id": host.session })
  if (!answer.body.includes("\"held\"")) throw new Error(`a held host's call answered ${answer.body.slice(0, 200)}`)
}

/** Opens `count` hosts, 50 at a time. */
const openHosts = async (url: string, count: number, from = 0): Promise<Array<Host>> => {
  const hosts: Array<Host> = []
  for (let i = 0; i < count; i += 50) {
    hosts.push(
      ...await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => openHost(url, from + i + j)))
    )
  }
  return hosts
}

// -------------------------------------------------------------------------------------------------------------------
// Targets.

interface Served {
  readonly url: string
  readonly pid: number
  readonly tool: string
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 1_000))

const mb = (kb: number) => (kb / 1024).toFixed(1)

interface Row {
  readonly target: string
  readonly hosts: number
  readonly before: number
  readonly after: number
  readonly processesBefore: number
  readonly processesAfter: number
  readonly note: string
}

const measureMemory = async (target: string, served: Served, count: number, note: string): Promise<Row> => {
  const warm = await openHosts(served.url, 1, 1_000_000)
  await callEcho(served.url, warm[0]!, served.tool)
  for (const host of warm) host.close()
  await settle()
  const before = treeRssKb(served.pid)
  const processesBefore = processes(served.pid)
  const hosts = await openHosts(served.url, count)
  await settle()
  const after = treeRssKb(served.pid)
  const processesAfter = processes(served.pid)
  for (const host of hosts) host.close()
  const spawned = processesAfter - processesBefore
  return {
    target,
    hosts: count,
    before,
    after,
    processesBefore,
    processesAfter,
    note: spawned > 0 ? `${(spawned / count).toFixed(0)} process(es) started per session` : note
  }
}

const main = async () => {
  const chosen = arg("targets", "gateway,mcp-proxy,supergateway").split(",")
  const dir = mkdtempSync(join(tmpdir(), "gateway-hosts-bench-"))
  const rows: Array<Row> = []
  const load = [loadavg()[0]!.toFixed(2)]
  let held = ""
  try {
    if (chosen.includes("gateway")) {
      const config = join(dir, "mcp.json")
      const echo = { command: process.execPath, args: [echoServerPath] }
      writeFileSync(config, JSON.stringify({ mcpServers: { echo } }))
      const gateway = await start(
        [
          cli,
          "serve",
          "--config",
          config,
          "--http",
          "127.0.0.1:0",
          "--prefix",
          "conditional",
          "--max-sessions",
          String(HOSTS + 10)
        ],
        /^\{"url"/
      )
      const url = JSON.parse(gateway.line).url as string
      const served = { url, pid: gateway.child.pid!, tool: "echo" }
      // Ready once the fleet has settled (a bounded wait: every 50 ms, at most 10 s).
      for (let i = 0; i < 200; i++) {
        const ready = await new Promise<number>((resolve) =>
          request(url.replace("/mcp", "/readyz"), { agent }, (res) => {
            res.resume()
            resolve(res.statusCode ?? 0)
          }).end()
        )
        if (ready === 200) break
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const warm = await openHosts(url, 1, 1_000_000)
      await callEcho(url, warm[0]!, "echo")
      for (const host of warm) host.close()
      await settle()
      const before = treeRssKb(served.pid)
      const processesBefore = processes(served.pid)
      const openedAt = performance.now()
      const hosts = await openHosts(url, HOSTS)
      const openMs = performance.now() - openedAt
      await settle()
      const after = treeRssKb(served.pid)
      rows.push({
        target: "mcp-fleet serve",
        hosts: HOSTS,
        before,
        after,
        processesBefore,
        processesAfter: processes(served.pid),
        note: "one echo process shared by every host"
      })
      // Held: every host calls once (100 at a time), then a config edit reaches every GET stream.
      const callsAt = performance.now()
      for (let i = 0; i < hosts.length; i += 100) {
        await Promise.all(hosts.slice(i, i + 100).map((host) => callEcho(url, host, "echo")))
      }
      const callsMs = performance.now() - callsAt
      const editedAt = performance.now()
      writeFileSync(config, JSON.stringify({ mcpServers: { echo, echo2: echo } }))
      const told = await Promise.all(hosts.map((host) => host.listChanged))
      const fanoutMs = Math.max(...told) - editedAt
      const status = await post(url, {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "fleet_status", arguments: {} }
      }, { "mcp-session-id": hosts[0]!.session })
      const line = /gateway: [^"\\]*/.exec(status.body)?.[0] ?? "(no gateway line)"
      held = `${HOSTS} hosts opened in ${(openMs / 1000).toFixed(1)} s (50 at a time); each called echo once in ` +
        `${(callsMs / 1000).toFixed(1)} s (100 at a time); a config edit reached all ${told.length} GET streams as ` +
        `tools/list_changed in ${fanoutMs.toFixed(0)} ms (edit → last stream, the file watch and the 100 ms ` +
        `coalescing window included); fleet_status then said "${line}"`
      for (const host of hosts) host.close()
      await stop(gateway.child)
    }
    if (chosen.includes("mcp-proxy")) {
      const port = await freePort()
      const proxy = await start(
        [
          mcpProxy,
          "--host",
          "127.0.0.1",
          "--port",
          String(port),
          "--server",
          "stream",
          "--",
          process.execPath,
          echoServerPath
        ],
        /starting server on port/i
      )
      await untilListening(port)
      rows.push(
        await measureMemory(
          "mcp-proxy 6.7.19",
          { url: `http://127.0.0.1:${port}/mcp`, pid: proxy.child.pid!, tool: "echo" },
          PEER_HOSTS,
          "one server process shared by every session"
        )
      )
      await stop(proxy.child)
    }
    if (chosen.includes("supergateway")) {
      const port = await freePort()
      const bridge = await start(
        [
          supergateway,
          "--stdio",
          `${process.execPath} ${echoServerPath}`,
          "--outputTransport",
          "streamableHttp",
          "--stateful",
          "--port",
          String(port)
        ],
        /- port:/i
      )
      await untilListening(port)
      rows.push(
        await measureMemory(
          "supergateway 4.0.0 --stateful",
          { url: `http://127.0.0.1:${port}/mcp`, pid: bridge.child.pid!, tool: "echo" },
          PEER_HOSTS,
          "one server process shared by every session"
        )
      )
      await stop(bridge.child)
    }
  } finally {
    agent.destroy()
    await stopAll()
    rmSync(dir, { recursive: true, force: true })
  }
  load.push(loadavg()[0]!.toFixed(2))
  console.log(`# held hosts: 2025-11-25 sessions, each with its GET stream open; 1-minute load ${load.join(" → ")}`)
  console.log("")
  console.log(
    "| serving | hosts | RSS before MB | RSS with the hosts MB | per host KB | processes before → after | note |"
  )
  console.log("| --- | ---: | ---: | ---: | ---: | --- | --- |")
  for (const row of rows) {
    console.log(
      `| ${row.target} | ${row.hosts} | ${mb(row.before)} | ${mb(row.after)} | ${
        ((row.after - row.before) / row.hosts).toFixed(0)
      } | ${row.processesBefore} → ${row.processesAfter} | ${row.note} |`
    )
  }
  if (held !== "") console.log(`\n${held}`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
