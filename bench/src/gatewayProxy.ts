/**
 * Issue 29's proxy cells: calls through `mcp-fleet serve` against the same calls made directly, in one run, over
 * stdio and over HTTP, at c=1 and c=64; and the npm bridges users run today (`mcp-proxy`, `supergateway`) beside
 * the gateway, each bridging the same stdio echo server to Streamable HTTP.
 *
 * Every target is driven by the same load generator, mcp-fleet's own client (`McpClient`, legacy era pinned), in
 * this process: `concurrency` fibers calling `echo` with a 64-byte payload back to back for `--ms`, after a warm-up;
 * every answer is checked. Targets, each a fresh set of processes per round, rounds alternating the order:
 *
 * - `stdio direct`: the client spawns `bench/servers/echo-server.mjs`;
 * - `stdio gateway`: the client spawns `mcp-fleet serve --prefix conditional`, which spawns the echo server;
 * - `stdio relay`: the client spawns `bench/servers/relay-stdio.mjs`, a hand-written relay that only parses and
 *   re-encodes each message (no Effect): the floor of any Node process in the middle, on this machine;
 * - `http direct`: the client posts to `bench/servers/echo-http.mjs` (the same echo over node:http);
 * - `http gateway → http`: to `mcp-fleet serve --http` in front of that HTTP echo server;
 * - `http gateway → stdio`, `mcp-proxy → stdio`, `supergateway → stdio` (its `--stateful` mode; the default
 *   stateless mode spawns a server per request): the three bridges in front of the stdio echo server.
 *
 * Reported per target: calls/s and p50/p99 latency at each concurrency (medians over rounds), and the CPU the
 * process in the middle spent per call (from `/proc/<pid>/stat`, at c=64). Not a test: nothing asserts a time.
 *
 *   node bench/src/gatewayProxy.ts [--rounds=3] [--ms=2000] [--warmup=500] [--targets=stdio-direct,stdio-gateway]
 *     [--concurrencies=1,64] [--cli-b=/path/to/earlier/checkout/packages/cli/bin/mcp-fleet.mjs]
 *     [--cpu-prof-dir=DIR]
 *
 * Also reported: the CPU this process (the load generator) spent per call at c=64, to tell the client's own cost
 * from the gateway's.
 *
 * @since 0.0.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { McpClient, type McpClientOptions } from "@mcp-fleet/transport"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { freePort, start, stopAll, untilListening } from "./ChildProcesses.ts"
import { echoServerPath } from "./EchoServer.ts"
import { percentile } from "./Stats.ts"

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback
const ROUNDS = Number(arg("rounds", "3"))
const WINDOW_MS = Number(arg("ms", "2000"))
const WARMUP_MS = Number(arg("warmup", "500"))
const PAYLOAD = "x".repeat(64)
/** `--cpu-prof-dir=DIR`: the gateway processes run under `node --cpu-prof`, their profiles written to DIR at exit. */
const PROFILE_DIR = arg("cpu-prof-dir", "")
const profiled = PROFILE_DIR === "" ? [] : ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`]
/** `--concurrencies=64`: only some of the concurrencies (a profile of the c=64 phase alone). */
const CONCURRENCIES = arg("concurrencies", "1,64").split(",").map(Number)
/**
 * `--cli-b=PATH`: another build's `packages/cli/bin/mcp-fleet.mjs` (a checkout of an earlier commit); its gateway
 * cells run beside this tree's, in the same rounds, as `stdio-gateway-b`, `http-gateway-http-b`, `http-gateway-stdio-b`.
 */
const CLI_B = arg("cli-b", "")
/** `--call=ping`: `ping` instead of `tools/call echo` (a gateway answers it itself: the cost of its front alone). */
const PING = arg("call", "echo") === "ping"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const cli = here("../../packages/cli/bin/mcp-fleet.mjs")
const echoHttp = here("../servers/echo-http.mjs")
const relayStdio = here("../servers/relay-stdio.mjs")
const mcpProxy = here("../node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs")
const supergateway = here("../node_modules/supergateway/dist/index.js")

const runtime = ManagedRuntime.make(Layer.merge(NodeServices.layer, NodeHttpClient.layerUndici))

// -------------------------------------------------------------------------------------------------------------------
// Processes.

/** CPU time (µs) a process has used so far, from /proc. */
const cpuMicros = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  // utime and stime are fields 14 and 15 of the whole line (11 and 12 after the command), in clock ticks (100 Hz).
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

/** The child of this process whose command line contains `marker`. */
const childPid = (marker: string): number | undefined => {
  for (const entry of readFileSync(`/proc/self/task/${process.pid}/children`, "utf8").trim().split(/\s+/)) {
    if (entry === "") continue
    const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8")
    if (cmdline.includes(marker)) return Number(entry)
  }
  return undefined
}

// -------------------------------------------------------------------------------------------------------------------
// Targets.

type ClientOptions = McpClientOptions.McpClientOptions | McpClientOptions.RemoteOptions

interface Target {
  readonly id: string
  readonly label: string
  /** Starts what the client talks to; the client's options, and the pid of the process in the middle if any. */
  readonly setup: (dir: string) => Promise<{ readonly client: ClientOptions; readonly middle?: () => number }>
}

const config = (dir: string, name: string, servers: Record<string, unknown>) => {
  const path = join(dir, name)
  writeFileSync(path, JSON.stringify({ mcpServers: servers }))
  return path
}
const stdioEcho = { command: process.execPath, args: [echoServerPath] }
const legacy = { name: "bench-host", protocol: "legacy" } as const

const urlOf = (line: string) => JSON.parse(line).url as string

/** The gateway's three cells, run by the CLI at `bin` (`--cli-b`: a second build, for a same-run A/B). */
const gatewayTargets = (bin: string, tag: string): ReadonlyArray<Target> => {
  const suffix = tag === "" ? "" : "-b"
  return [
    {
      id: `stdio-gateway${suffix}`,
      label: `stdio gateway → stdio${tag}`,
      setup: async (dir) => {
        const file = config(dir, `stdio${suffix}.json`, { echo: stdioEcho })
        return {
          client: {
            ...legacy,
            command: process.execPath,
            args: [...profiled, bin, "serve", "--config", file, "--prefix", "conditional"]
          },
          middle: () => childPid(file)!
        }
      }
    },
    {
      id: `http-gateway-http${suffix}`,
      label: `http gateway → http${tag}`,
      setup: async (dir) => {
        const echo = await start([echoHttp], /"url"/)
        const file = config(dir, `http-http${suffix}.json`, { echo: { url: urlOf(echo.line) } })
        const gateway = await start(
          [...profiled, bin, "serve", "--config", file, "--http", "127.0.0.1:0", "--prefix", "conditional"],
          /^\{"url"/
        )
        return { client: { ...legacy, url: urlOf(gateway.line), transport: "http" }, middle: () => gateway.child.pid! }
      }
    },
    {
      id: `http-gateway-stdio${suffix}`,
      label: `http gateway → stdio${tag}`,
      setup: async (dir) => {
        const file = config(dir, `http-stdio${suffix}.json`, { echo: stdioEcho })
        const gateway = await start(
          [...profiled, bin, "serve", "--config", file, "--http", "127.0.0.1:0", "--prefix", "conditional"],
          /^\{"url"/
        )
        return { client: { ...legacy, url: urlOf(gateway.line), transport: "http" }, middle: () => gateway.child.pid! }
      }
    }
  ]
}

const targets: ReadonlyArray<Target> = [
  {
    id: "stdio-direct",
    label: "stdio direct",
    setup: async () => ({ client: { ...legacy, ...stdioEcho } })
  },
  {
    id: "stdio-relay",
    label: "stdio relay (relay-stdio.mjs: JSON.parse/stringify only) → stdio",
    setup: async () => ({
      client: { ...legacy, command: process.execPath, args: [relayStdio, process.execPath, echoServerPath] },
      middle: () => childPid(relayStdio)!
    })
  },
  {
    id: "http-direct",
    label: "http direct",
    setup: async () => {
      const echo = await start([echoHttp], /"url"/)
      return { client: { ...legacy, url: urlOf(echo.line), transport: "http" } }
    }
  },
  ...gatewayTargets(cli, ""),
  ...(CLI_B === "" ? [] : gatewayTargets(CLI_B, " (B)")),
  {
    id: "mcp-proxy",
    label: "mcp-proxy 6.7.19 → stdio",
    setup: async () => {
      const port = await freePort()
      const proxy = await start(
        [mcpProxy, "--host", "127.0.0.1", "--port", String(port), "--server", "stream", "--", ...[
          process.execPath,
          echoServerPath
        ]],
        /starting server on port/i
      )
      await untilListening(port)
      return {
        client: { ...legacy, url: `http://127.0.0.1:${port}/mcp`, transport: "http" },
        middle: () => proxy.child.pid!
      }
    }
  },
  {
    id: "supergateway",
    label: "supergateway 4.0.0 --stateful → stdio",
    setup: async () => {
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
          String(port),
          "--logLevel",
          "info"
        ],
        /- port:/i
      )
      await untilListening(port)
      return {
        client: { ...legacy, url: `http://127.0.0.1:${port}/mcp`, transport: "http" },
        middle: () => bridge.child.pid!
      }
    }
  }
]

// -------------------------------------------------------------------------------------------------------------------
// Measuring.

interface Sample {
  readonly callsPerSec: number
  readonly p50Us: number
  readonly p99Us: number
  readonly middleCpuUsPerCall: number | undefined
  /** The CPU this process (the load generator: the client) spent per call. */
  readonly clientCpuUsPerCall: number
}

/** `concurrency` fibers calling back to back until `until`; every call's latency (ms). */
const loop = (client: McpClient.McpClient, concurrency: number, until: number) =>
  Effect.gen(function*() {
    const latencies: Array<number> = []
    const worker = Effect.gen(function*() {
      while (performance.now() < until) {
        const started = performance.now()
        if (PING) {
          yield* client.ping()
          latencies.push(performance.now() - started)
          continue
        }
        const result = yield* client.callTool("echo", { payload: PAYLOAD })
        latencies.push(performance.now() - started)
        const block = result.content[0]
        if (block?.["text"] !== PAYLOAD) return yield* Effect.die(`echo answered ${JSON.stringify(result)}`)
      }
    })
    yield* Effect.all(Array.from({ length: concurrency }, () => worker), { concurrency: "unbounded", discard: true })
    return latencies
  })

const measureTarget = (target: Target, dir: string) =>
  Effect.gen(function*() {
    const setup = yield* Effect.promise(() => target.setup(dir))
    const options = setup.client
    const client = "url" in options ? yield* McpClient.make(options) : yield* McpClient.make(options)
    yield* client.awaitReady
    // A gateway answers before its upstream is ready: wait until it lists echo (re-listing at each list change).
    const changed = yield* Queue.unbounded<void>()
    yield* client.listChanges.pipe(
      Stream.runForEach(() => Queue.offer(changed, undefined)),
      Effect.forkScoped({ startImmediately: true })
    )
    while (!(yield* client.listTools()).tools.some((tool) => tool.name === "echo")) yield* Queue.take(changed)
    const samples = new Map<number, Sample>()
    for (const concurrency of CONCURRENCIES) {
      yield* loop(client, concurrency, performance.now() + WARMUP_MS)
      const pid = setup.middle?.()
      const cpuBefore = pid === undefined ? 0 : cpuMicros(pid)
      const clientBefore = process.cpuUsage()
      const started = performance.now()
      const latencies = yield* loop(client, concurrency, started + WINDOW_MS)
      const elapsed = performance.now() - started
      const cpu = pid === undefined ? undefined : (cpuMicros(pid) - cpuBefore) / latencies.length
      const own = process.cpuUsage(clientBefore)
      samples.set(concurrency, {
        callsPerSec: (latencies.length * 1000) / elapsed,
        p50Us: percentile(latencies, 50) * 1000,
        p99Us: percentile(latencies, 99) * 1000,
        middleCpuUsPerCall: cpu,
        clientCpuUsPerCall: (own.user + own.system) / latencies.length
      })
    }
    return samples
  }).pipe(Effect.scoped)

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const main = async () => {
  const chosen = arg("targets", targets.map((t) => t.id).join(",")).split(",")
  const active = targets.filter((t) => chosen.includes(t.id))
  const results = new Map<string, Array<Map<number, Sample>>>()
  const load = [loadavg()[0]!.toFixed(2)]
  const dir = mkdtempSync(join(tmpdir(), "gateway-proxy-bench-"))
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? active : [...active].reverse()
      for (const target of order) {
        const scope = await Effect.runPromise(Scope.make())
        const exit = await runtime.runPromiseExit(measureTarget(target, dir).pipe(Scope.provide(scope)))
        await Effect.runPromise(Scope.close(scope, Exit.void))
        await stopAll()
        if (Exit.isFailure(exit)) throw new Error(`${target.id}: ${String(exit.cause)}`)
        results.set(target.id, [...(results.get(target.id) ?? []), exit.value])
        process.stderr.write(`round ${round + 1}/${ROUNDS}: ${target.id} done\n`)
      }
    }
  } finally {
    await stopAll()
    rmSync(dir, { recursive: true, force: true })
    await runtime.dispose()
  }
  load.push(loadavg()[0]!.toFixed(2))

  const summary = (id: string, concurrency: number, key: keyof Sample) => {
    const values = (results.get(id) ?? []).map((r) => r.get(concurrency)?.[key]).filter((v) => v !== undefined)
    return values.length === 0 ? undefined : median(values)
  }
  const fmt = (n: number | undefined, digits = 0) =>
    n === undefined ? "–" : n.toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: digits })
  console.log(
    `# gateway proxy cells: ${ROUNDS} rounds × ${WINDOW_MS} ms per concurrency, 64-byte payload, median of rounds; ` +
      `1-minute load ${load.join(" → ")}`
  )
  console.log("")
  console.log(
    "| target | c=1 calls/s | c=1 p50 µs | middle CPU µs/call (c=1) | c=64 calls/s | c=64 p50 µs | c=64 p99 µs | " +
      "middle CPU µs/call (c=64) | client CPU µs/call (c=64) |"
  )
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
  for (const target of active) {
    const s = (c: number, k: keyof Sample, d = 0) => fmt(summary(target.id, c, k), d)
    console.log(
      `| ${target.label} | ${s(1, "callsPerSec")} | ${s(1, "p50Us")} | ${s(1, "middleCpuUsPerCall", 1)} | ${
        s(64, "callsPerSec")
      } | ${s(64, "p50Us")} | ${s(64, "p99Us")} | ${s(64, "middleCpuUsPerCall", 1)} | ${
        s(64, "clientCpuUsPerCall", 1)
      } |`
    )
  }
  console.log("")
  console.log(
    "| proxied against direct, same run | c=64 throughput ratio | p50 added at c=1 (µs) | p50 added at c=64 (µs) |"
  )
  console.log("| --- | ---: | ---: | ---: |")
  const against = (proxied: string, direct: string, label: string) => {
    const ratio = (summary(proxied, 64, "callsPerSec") ?? Number.NaN) /
      (summary(direct, 64, "callsPerSec") ?? Number.NaN)
    const added = (c: number) =>
      (summary(proxied, c, "p50Us") ?? Number.NaN) - (summary(direct, c, "p50Us") ?? Number.NaN)
    if (!Number.isNaN(ratio)) console.log(`| ${label} | ${ratio.toFixed(2)} × | ${fmt(added(1))} | ${fmt(added(64))} |`)
  }
  for (const suffix of CLI_B === "" ? [""] : ["", "-b"]) {
    const tag = suffix === "" ? "" : " (B)"
    against(`stdio-gateway${suffix}`, "stdio-direct", `stdio gateway${tag} vs stdio direct`)
    against(`http-gateway-http${suffix}`, "http-direct", `http gateway → http${tag} vs http direct`)
    against(`http-gateway-stdio${suffix}`, "stdio-direct", `http gateway → stdio${tag} vs stdio direct`)
  }
  against("stdio-relay", "stdio-direct", "stdio relay (the floor of a Node proxy) vs stdio direct")
  against("mcp-proxy", "stdio-direct", "mcp-proxy → stdio vs stdio direct")
  against("supergateway", "stdio-direct", "supergateway → stdio vs stdio direct")
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
