/**
 * Bytes allocated per call: one client (a registered one, `raw`, or a transport copy in a directory, as
 * `compareTransport.ts` takes them) calls `echo` at a given concurrency, and V8's sampling heap profiler counts
 * what the timed window allocates, collected objects included (`includeObjectsCollectedByMajorGC`/`MinorGC`). The
 * estimate is the profile's summed self sizes (every sample stands for its share of the sampling interval) divided
 * by the calls. Prints one JSON line per round; rounds alternate the clients given, one fresh process each.
 *
 *   node --expose-gc src/allocProbe.ts --rounds=4 --calls=20000 --concurrency=64 raw ../.cache/ab/start ../packages/transport
 *
 * @since 0.0.0
 */
import { execFileSync } from "node:child_process"
import { Session } from "node:inspector/promises"
import { isAbsolute, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import type { ClientAdapter } from "./ClientAdapter.ts"
import { findClient } from "./clients/registry.ts"
import { runtime, transportAt } from "./clients/transportAt.ts"
import { echoLaunch } from "./EchoServer.ts"
import { median } from "./Stats.ts"

const arg = (name: string, fallback: string): string => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`))
  return found === undefined ? fallback : found.slice(name.length + 3)
}

interface ProfileNode {
  readonly selfSize: number
  readonly children: ReadonlyArray<ProfileNode>
}

const total = (node: ProfileNode): number => node.children.reduce((sum, child) => sum + total(child), node.selfSize)

const load = async (id: string): Promise<ClientAdapter> => {
  const entry = findClient(id)
  if (entry !== undefined) return entry.load()
  return transportAt(isAbsolute(id) ? id : resolve(process.cwd(), id))
}

/** One measurement, in this process: warm-up, then the sampled window. */
const measure = async (id: string, calls: number, concurrency: number): Promise<number> => {
  const adapter = await load(id)
  const session = await adapter.start(echoLaunch({}))
  const payload = "x".repeat(64)
  const run = async (count: number) => {
    let left = count
    const worker = async () => {
      while (left > 0) {
        left--
        if ((await session.call(payload)).length !== payload.length) throw new Error("echo returned the wrong payload")
      }
    }
    await Promise.all(Array.from({ length: concurrency }, worker))
  }
  try {
    await run(5_000)
    const inspector = new Session()
    inspector.connect()
    await inspector.post("HeapProfiler.startSampling", {
      samplingInterval: 256,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true
    })
    await run(calls)
    const { profile } = await inspector.post("HeapProfiler.stopSampling")
    inspector.disconnect()
    return total(profile.head as ProfileNode) / calls
  } finally {
    await session.close()
  }
}

const main = async () => {
  const calls = Number(arg("calls", "20000"))
  const concurrency = Number(arg("concurrency", "64"))
  const one = arg("one", "")
  if (one !== "") {
    process.stdout.write(JSON.stringify({ client: one, bytesPerCall: await measure(one, calls, concurrency) }) + "\n")
    return
  }
  const rounds = Number(arg("rounds", "4"))
  const clients = process.argv.slice(2).filter((a) => !a.startsWith("--"))
  const results = new Map<string, Array<number>>(clients.map((c) => [c, []]))
  const self = fileURLToPath(import.meta.url)
  for (let round = 0; round < rounds; round++) {
    // A fresh process per client and round; the order rotates.
    for (let k = 0; k < clients.length; k++) {
      const client = clients[(k + round) % clients.length]!
      const out = execFileSync(process.execPath, [
        "--expose-gc",
        self,
        `--one=${client}`,
        `--calls=${calls}`,
        `--concurrency=${concurrency}`
      ], { encoding: "utf8" })
      const { bytesPerCall } = JSON.parse(out.trim().split("\n").pop()!) as { bytesPerCall: number }
      results.get(client)!.push(bytesPerCall)
    }
  }
  for (const [client, values] of results) {
    const sorted = [...values].sort((a, b) => a - b)
    process.stdout.write(
      `alloc c${concurrency} ${client.padEnd(32)} ${(median(values) / 1024).toFixed(2)} KB/call (${
        (sorted[0]! / 1024).toFixed(2)
      }–${(sorted[sorted.length - 1]! / 1024).toFixed(2)}, ${values.length} rounds)\n`
    )
  }
}

main().then(
  async () => {
    await runtime.dispose()
    process.exit(0)
  },
  (error: unknown) => {
    process.stderr.write(`allocProbe: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
    process.exit(1)
  }
)
