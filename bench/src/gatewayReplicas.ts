/**
 * Issue 30's cells for gateway replicas, measured on the real `mcp-fleet serve` (one process per replica, its
 * upstream a fake stdio server), with a closed-loop load of raw HTTP hosts (`node:http`, keep-alive), same run:
 *
 * - **sessions**: one replica, 2025-11-25 hosts calling a tool, with in-process session ids, with sealed ids (the
 *   steady state: an id opened once per replica, then from the cache), and with more sessions than the replica keeps
 *   (2,048 in rotation: every request opens its id and rebuilds its host);
 * - **Redis on the call path**: the same replica with `--redis` (tokens, bus, results in Redis): the commands Redis
 *   processed per call (`INFO stats`, the reads of it subtracted), and the CPU per call;
 * - **a refresh**: `McpAuth` refreshing an expired token against the fake authorization server, with the in-memory
 *   token store and with the Redis one (its lock, its write), and the Redis commands it costs;
 * - **1 vs 3 replicas**: 2026-07-28 hosts against one replica directly, one behind HAProxy, three behind HAProxy
 *   (`docs/deploy/haproxy.cfg`), each replica's CPU per call and the balancer's.
 *
 * CPU is each process's `utime + stime` from `/proc/<pid>/stat` over the measured window (10 ms ticks), divided by
 * the calls completed in it. The load generator runs in this process, on the same cores: on a 2-core machine three
 * replicas cannot run faster than one, so the figures to read are the costs per call, not a speed-up. Not a test:
 * nothing asserts a time.
 *
 *   node bench/src/gatewayReplicas.ts [--rounds=5] [--seconds=3] [--hosts=16] [--refreshes=40]
 *
 * @since 0.0.0
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { AuthorizationPrompt, McpAuth, ProtectedResourceMetadata, TokenStore } from "@mcp-fleet/auth"
import { startAuthServer } from "@mcp-fleet/fake-server/auth-server"
import { SharedState } from "@mcp-fleet/gateway"
import { Daemons, FakeServer } from "@mcp-fleet/testing"
import * as Context from "effect/Context"
import * as SecureRandom from "effect/crypto/SecureRandom"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as Http from "node:http"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

const arg = (name: string, fallback: number) => {
  const given = process.argv.find((a) => a.startsWith(`--${name}=`))
  return given === undefined ? fallback : Number(given.slice(name.length + 3))
}
const SECONDS = arg("seconds", 3)
const HOSTS = arg("hosts", 16)
const REFRESHES = arg("refreshes", 40)

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..")
const cli = join(root, "packages", "cli", "bin", "mcp-fleet.mjs")
const haproxyConfig = join(root, "docs", "deploy", "haproxy.cfg")

// ---------------------------------------------------------------------------------------------------------------
// Processes and their CPU.

/** CPU ticks (utime + stime) of one process; 0 when it is gone. */
const ticks = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return 0
  }
}

/** The pids of a process's children. */
const children = (pid: number): Array<number> =>
  readdirSync("/proc").flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return []
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid ? [Number(entry)] : []
    } catch {
      return []
    }
  })

/** A replica: `mcp-fleet serve` on a port, ready (its own line), killed with its group when the scope ends. */
const replica = (port: number, config: string, flags: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly child: ChildProcess; readonly pid: number; readonly origin: string }>((resume) => {
      const child = spawn(
        process.execPath,
        [cli, "serve", "--config", config, "--http", `127.0.0.1:${port}`, ...flags],
        { stdio: ["ignore", "ignore", "pipe"], detached: true }
      )
      const tail: Array<string> = []
      createInterface({ input: child.stderr! }).on("line", (line) => {
        tail.push(line)
        if (line.startsWith("mcp-fleet serve: ready")) {
          resume(Effect.succeed({ child, pid: child.pid!, origin: `http://127.0.0.1:${port}` }))
        }
      })
      child.once("exit", (code) => resume(Effect.die(new Error(`serve exited (${code}): ${tail.join(" | ")}`))))
    }),
    ({ child }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          child.once("exit", () => resolve())
          try {
            process.kill(-child.pid!, "SIGKILL")
          } catch {
            resolve()
          }
        })
      )
  )

// ---------------------------------------------------------------------------------------------------------------
// Load: hosts calling in a closed loop for a while.

const agent = new Http.Agent({ keepAlive: true, maxSockets: 512 })

/** One POST; its status, headers and body. */
const post = (url: string, headers: Record<string, string>, body: unknown) =>
  new Promise<
    {
      readonly status: number
      readonly sessionId: string | undefined
      readonly wwwAuthenticate: string | undefined
      readonly body: string
    }
  >(
    (resolve, reject) => {
      const text = JSON.stringify(body)
      const request = Http.request(url, {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", accept: "application/json", ...headers }
      }, (response) => {
        let data = ""
        response.setEncoding("utf8").on("data", (chunk: string) => (data += chunk)).on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            sessionId: typeof response.headers["mcp-session-id"] === "string"
              ? response.headers["mcp-session-id"]
              : undefined,
            wwwAuthenticate: response.headers["www-authenticate"],
            body: data
          }))
      })
      request.on("error", reject)
      request.end(text)
    }
  )

const legacyInitialize = (url: string) =>
  post(url, {}, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench-host", version: "1" } }
  }).then(async (answer) => {
    if (answer.sessionId === undefined) throw new Error(`no session: ${answer.body}`)
    await post(url, { "mcp-session-id": answer.sessionId }, { jsonrpc: "2.0", method: "notifications/initialized" })
    return answer.sessionId
  })

/** A 2025-11-25 call in session `sessionId`. */
const legacyCall = (url: string, sessionId: string, i: number) =>
  post(url, { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" }, {
    jsonrpc: "2.0",
    id: i,
    method: "tools/call",
    params: { name: "fake__echo", arguments: { i } }
  })

/** A 2026-07-28 call: the envelope in `_meta`, the standard headers. */
const modernCall = (url: string, i: number) =>
  post(url, { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "fake__echo" }, {
    jsonrpc: "2.0",
    id: i,
    method: "tools/call",
    params: {
      name: "fake__echo",
      arguments: { i },
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "bench-host", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {}
      }
    }
  })

interface Measured {
  /** µs of this process's CPU (the load generator) over the window. */
  readonly ownCpu: number
  readonly calls: number
  readonly failed: number
  readonly seconds: number
  readonly p50: number
  readonly p99: number
  /** CPU ticks used by each watched pid over the window. */
  readonly cpu: ReadonlyArray<number>
}

/**
 * Runs `hosts` loops of `call(host, i)` for `SECONDS` after a one-second warm-up, watching `pids`' CPU over the
 * measured window only.
 */
const load = (
  hosts: number,
  call: (host: number, i: number) => Promise<{ readonly status: number; readonly body: string }>,
  pids: ReadonlyArray<number>
): Promise<Measured> =>
  new Promise((resolve) => {
    const latencies: Array<number> = []
    let calls = 0
    let failed = 0
    let measuring = false
    let running = true
    let started = 0
    let before: Array<number> = []
    let own = process.cpuUsage()
    const loop = async (host: number) => {
      let i = 0
      while (running) {
        const start = performance.now()
        const answer = await call(host, i++).catch(() => ({ status: 0, body: "" }))
        if (!measuring) continue
        calls++
        if (answer.status !== 200 || answer.body.includes("\"error\"") || answer.body.includes("\"isError\":true")) {
          failed++
        }
        latencies.push(performance.now() - start)
      }
    }
    const loops = Array.from({ length: hosts }, (_, host) => loop(host))
    setTimeout(() => {
      before = pids.map(ticks)
      own = process.cpuUsage()
      started = performance.now()
      measuring = true
      setTimeout(() => {
        measuring = false
        const seconds = (performance.now() - started) / 1000
        const cpu = pids.map((pid, index) => ticks(pid) - before[index]!)
        const used = process.cpuUsage(own)
        running = false
        void Promise.all(loops).then(() => {
          latencies.sort((a, b) => a - b)
          resolve({
            ownCpu: used.user + used.system,
            calls,
            failed,
            seconds,
            p50: latencies[Math.floor(latencies.length / 2)] ?? 0,
            p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
            cpu
          })
        })
      }, SECONDS * 1000)
    }, 1_000)
  })

/** µs of CPU per call from ticks (10 ms each). */
const perCall = (cpuTicks: number, calls: number) => (calls === 0 ? 0 : (cpuTicks * 10_000) / calls)

// ---------------------------------------------------------------------------------------------------------------
// The cells.

/** Each cell's figures, one value per round. */
const results = new Map<string, Map<string, Array<number>>>()
const record = (cell: string, values: Record<string, number>) => {
  const figures = results.get(cell) ?? new Map<string, Array<number>>()
  results.set(cell, figures)
  for (const [name, value] of Object.entries(values)) figures.set(name, [...(figures.get(name) ?? []), value])
}
const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const ROUNDS = arg("rounds", 5)

const program = Effect.gen(function*() {
  const load1 = loadavg()[0]!.toFixed(2)
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "mcp-fleet-bench-replicas-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )
  const fake = FakeServer.command()
  const config = join(dir, "mcp.json")
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { fake: { command: fake.command, args: fake.args, env: fake.env } } })
  )
  const keyFile = join(dir, "key")
  writeFileSync(keyFile, `${randomBytes(32).toString("base64")}\n`)
  const redis = yield* Daemons.redis()
  /** Redis's count of commands processed (each read of it counts one). */
  const processed = () =>
    new Promise<number>((resolve, reject) => {
      const child = spawn("redis-cli", ["-p", String(redis.port), "INFO", "stats"])
      let out = ""
      child.stdout.on("data", (chunk) => (out += chunk))
      child.once("exit", () => resolve(Number(/total_commands_processed:(\d+)/.exec(out)?.[1])))
      child.once("error", reject)
    })

  // --- Sessions and Redis: four replicas, all up at once, measured in turn, window after window, so that each
  // window's figure is compared with the in-process replica's window next to it (the machine's load drifts).
  const legacyReplica = (label: string, flags: ReadonlyArray<string>, sessions = HOSTS) =>
    Effect.gen(function*() {
      const port = yield* Daemons.freePort
      const served = yield* replica(port, config, flags)
      const url = `${served.origin}/mcp`
      const ids = yield* Effect.promise(() =>
        Promise.all(Array.from({ length: sessions }, () => legacyInitialize(url)))
      )
      let next = 0
      // With more sessions than hosts, each call takes the next session in rotation.
      const call = (host: number, i: number) =>
        legacyCall(url, sessions === HOSTS ? ids[host]! : ids[next++ % sessions]!, i)
      return { label, pid: served.pid, call, redis: flags.includes("--redis") }
    })
  const legacyReplicas = yield* Effect.all([
    legacyReplica("2025-11-25, in-process session ids", []),
    legacyReplica("2025-11-25, sealed ids (opened once, then cached)", ["--session-key-file", keyFile]),
    legacyReplica("2025-11-25, sealed ids, 2,048 sessions in rotation (over the 1,024 cached)", [
      "--session-key-file",
      keyFile
    ], 2_048),
    legacyReplica("2025-11-25, sealed ids and --redis (tokens, bus, results in Redis)", [
      "--session-key-file",
      keyFile,
      "--redis",
      redis.url
    ])
  ])
  const legacyCells = Effect.gen(function*() {
    let baseline = 0
    for (const [index, served] of legacyReplicas.entries()) {
      const countBefore = served.redis ? yield* Effect.promise(processed) : 0
      const measured = yield* Effect.promise(() => load(HOSTS, served.call, [served.pid]))
      const countAfter = served.redis ? yield* Effect.promise(processed) : 0
      const cpu = perCall(measured.cpu[0]!, measured.calls)
      if (index === 0) baseline = cpu
      record(served.label, {
        "calls/s": measured.calls / measured.seconds,
        "p50 ms": measured.p50,
        "replica CPU µs/call": cpu,
        ...(index === 0 ? {} : { "over in-process, same round": cpu - baseline }),
        "load generator CPU µs/call": measured.ownCpu / Math.max(1, measured.calls),
        failed: measured.failed,
        ...(served.redis
          ? { "Redis commands/call": Math.max(0, countAfter - countBefore - 1) / Math.max(1, measured.calls) }
          : {})
      })
    }
  })

  // --- A refresh: memory store against Redis store.
  const authServer = yield* Effect.acquireRelease(
    Effect.promise(() => startAuthServer({ expiresIn: 3600 })),
    (server) => Effect.promise(() => server.close())
  )
  const resource = ProtectedResourceMetadata.canonicalResource(authServer.mcpUrl)
  const refreshCell = (label: string, store: TokenStore.TokenStore["Service"], redisCounted: boolean) =>
    Effect.gen(function*() {
      const auth = Context.get(
        yield* Layer.build(
          McpAuth.layer({ clientName: "bench", redirectUri: "http://127.0.0.1/callback" }).pipe(
            Layer.provide(
              Layer.mergeAll(AuthorizationPrompt.layerHeadless, Layer.succeed(TokenStore.TokenStore, store))
            )
          )
        ),
        McpAuth.McpAuth
      )
      // Authorize once (a 401 first, as a server answers), then refresh REFRESHES times.
      const first = yield* Effect.promise(() => post(authServer.mcpUrl, {}, {}))
      yield* auth.onChallenge(authServer.mcpUrl, { status: first.status, wwwAuthenticate: first.wwwAuthenticate })
      yield* auth.headers(authServer.mcpUrl)
      const grants = () => authServer.requests.filter((r) => r.form["grant_type"] === "refresh_token").length
      const grantsBefore = grants()
      let spent = 0
      let commands = 0
      for (let i = 0; i < REFRESHES; i++) {
        const held = yield* store.getTokens(resource)
        if (held._tag === "None") return yield* Effect.die("no tokens")
        yield* store.setTokens(resource, { ...held.value, expiresAt: 0 })
        const countBefore = redisCounted ? yield* Effect.promise(processed) : 0
        const start = performance.now()
        yield* auth.headers(authServer.mcpUrl)
        spent += performance.now() - start
        if (redisCounted) commands += (yield* Effect.promise(processed)) - countBefore - 1
      }
      record(label, {
        "ms/refresh": spent / REFRESHES,
        "token requests/refresh": (grants() - grantsBefore) / REFRESHES,
        ...(redisCounted ? { "Redis commands/refresh": commands / REFRESHES } : {})
      })
    }).pipe(Effect.scoped)
  const shared = yield* Layer.build(
    SharedState.layer({ redis: { url: Redacted.make(redis.url) }, tokens: TokenStore.layerMemory }).pipe(
      Layer.provide(SecureRandom.layerWebCrypto)
    )
  )
  yield* Context.get(shared, SharedState.SharedState).changes.pipe(
    Stream.filter((s) => s._tag === "Connected"),
    Stream.runHead
  )
  const refreshCells = Effect.gen(function*() {
    yield* refreshCell("a refresh, in-memory token store", yield* TokenStore.makeMemory, false)
    yield* refreshCell(
      "a refresh, Redis token store (lock, write, announce)",
      Context.get(shared, TokenStore.TokenStore),
      true
    )
  })

  // --- 1 vs 3 replicas, 2026-07-28 hosts.
  const flags = ["--session-key-file", keyFile, "--redis", redis.url]
  const ports = [yield* Daemons.freePort, yield* Daemons.freePort, yield* Daemons.freePort]
  const replicas = yield* Effect.forEach(ports, (port) => replica(port, config, flags), { concurrency: "unbounded" })
  const throughput = (label: string, url: string, watched: ReadonlyArray<number>, proxyPid: number | undefined) =>
    Effect.gen(function*() {
      // The replicas, their upstreams (each replica's fake stdio server), then the balancer's processes.
      const upstreams = watched.flatMap(children)
      const proxies = proxyPid === undefined ? [] : [proxyPid, ...children(proxyPid)]
      const pids = [...watched, ...upstreams, ...proxies]
      const measured = yield* Effect.promise(() => load(HOSTS * 2, (_, i) => modernCall(url, i), pids))
      const replicaTicks = measured.cpu.slice(0, watched.length)
      const upstreamTicks = measured.cpu.slice(watched.length, watched.length + upstreams.length)
        .reduce((a, b) => a + b, 0)
      const proxyTicks = measured.cpu.slice(watched.length + upstreams.length).reduce((a, b) => a + b, 0)
      record(label, {
        "calls/s": measured.calls / measured.seconds,
        "p50 ms": measured.p50,
        "p99 ms": measured.p99,
        ...Object.fromEntries(replicaTicks.map((t, i) => [`replica ${i + 1} CPU µs/call`, perCall(t, measured.calls)])),
        "replicas' CPU µs/call": perCall(replicaTicks.reduce((a, b) => a + b, 0), measured.calls),
        "upstreams' CPU µs/call": perCall(upstreamTicks, measured.calls),
        ...(proxyPid === undefined ? {} : { "HAProxy CPU µs/call": perCall(proxyTicks, measured.calls) }),
        "load generator CPU µs/call": measured.ownCpu / Math.max(1, measured.calls),
        failed: measured.failed
      })
    })
  const proxyOf = (count: number) =>
    Daemons.haproxy({
      config: haproxyConfig,
      env: (port) => ({
        HAPROXY_BIND: `127.0.0.1:${port}`,
        GATEWAY_1: `127.0.0.1:${ports[0]}`,
        GATEWAY_2: `127.0.0.1:${count === 3 ? ports[1] : ports[0]}`,
        GATEWAY_3: `127.0.0.1:${count === 3 ? ports[2] : ports[0]}`,
        HAPROXY_CHECK_INTER: "1s"
      })
    })
  const throughputCells = Effect.gen(function*() {
    yield* throughput("2026-07-28, one replica, direct", `${replicas[0]!.origin}/mcp`, [replicas[0]!.pid], undefined)
    yield* Effect.scoped(Effect.gen(function*() {
      const proxy = yield* proxyOf(1)
      const pid = yield* proxy.pid
      yield* throughput("2026-07-28, one replica behind HAProxy", `${proxy.url}/mcp`, [replicas[0]!.pid], pid)
    }))
    yield* Effect.scoped(Effect.gen(function*() {
      const proxy = yield* proxyOf(3)
      const pid = yield* proxy.pid
      yield* throughput(
        "2026-07-28, three replicas behind HAProxy",
        `${proxy.url}/mcp`,
        replicas.map((r) => r.pid),
        pid
      )
    }))
  })

  // Rounds: every cell once per round, in the same order; the table gives each figure's median round.
  for (let round = 0; round < ROUNDS; round++) {
    yield* legacyCells
    yield* refreshCells
    yield* throughputCells
  }

  const load2 = loadavg()[0]!.toFixed(2)
  console.log(
    `gateway replicas: ${ROUNDS} rounds, median (min–max); ${SECONDS} s per cell after 1 s of warm-up; ${HOSTS} hosts ` +
      `(2026-07-28: ${HOSTS * 2}); 1-minute load ${load1} → ${load2}; CPU from /proc (10 ms ticks)`
  )
  for (const [cell, figures] of results) {
    const format = (value: number) =>
      value < 1 && value > 0 ? value.toFixed(4) : value < 20 ? value.toFixed(2) : value.toFixed(0)
    const shown = [...figures].map(([name, values]) =>
      `${name} ${format(median(values))} (${format(Math.min(...values))}–${format(Math.max(...values))})`
    )
    console.log(`${cell}: ${shown.join(" · ")}`)
  }
})

Effect.runPromise(
  program.pipe(Effect.scoped, Effect.provide([NodeServices.layer, NodeHttpClient.layerUndici]))
).then(
  () => agent.destroy(),
  (error) => {
    agent.destroy()
    console.error(error)
    process.exitCode = 1
  }
)
