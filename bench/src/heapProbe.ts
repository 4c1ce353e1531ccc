/**
 * Heap probe: a separate process (run with `node --expose-gc`) that drives one client for many calls and
 * samples `heapUsed` after forced GC at evenly spaced points. Prints one JSON line on stdout.
 *
 *   node --expose-gc src/heapProbe.ts --client=raw --calls=100000 --samples=11 --concurrency=64 --payload=64
 *
 * @since 0.0.0
 */
import { findClient } from "./clients/registry.ts"
import { echoLaunch } from "./EchoServer.ts"

const WARMUP_CALLS = 2_000

const arg = (name: string, fallback: string): string => {
  const prefix = `--${name}=`
  const found = process.argv.find((a) => a.startsWith(prefix))
  return found === undefined ? fallback : found.slice(prefix.length)
}

const main = async () => {
  const gc = globalThis.gc
  if (typeof gc !== "function") throw new Error("heapProbe needs node --expose-gc")
  const entry = findClient(arg("client", "raw"))
  if (entry === undefined) throw new Error(`unknown client ${arg("client", "")}`)
  const calls = Number(arg("calls", "100000"))
  const samples = Number(arg("samples", "11"))
  const concurrency = Number(arg("concurrency", "64"))
  const payload = "x".repeat(Number(arg("payload", "64")))
  if (![calls, samples, concurrency].every((n) => Number.isSafeInteger(n) && n > 0) || samples < 2) {
    throw new Error("calls, samples (>= 2) and concurrency must be positive integers")
  }

  const adapter = await entry.load()
  const session = await adapter.start(echoLaunch({}))
  const run = async (count: number) => {
    let left = count
    const worker = async () => {
      while (left > 0) {
        left--
        const text = await session.call(payload)
        if (text.length !== payload.length) throw new Error("echo returned the wrong payload")
      }
    }
    await Promise.all(Array.from({ length: concurrency }, worker))
  }
  const sample = () => {
    gc()
    gc()
    return process.memoryUsage().heapUsed / (1024 * 1024)
  }

  await run(WARMUP_CALLS)
  const heapMB = [sample()]
  const start = performance.now()
  let done = 0
  for (let i = 1; i < samples; i++) {
    const target = Math.round((calls * i) / (samples - 1))
    await run(target - done)
    done = target
    heapMB.push(sample())
  }
  const elapsedMs = performance.now() - start
  await session.close()
  process.stdout.write(JSON.stringify({ client: adapter.id, calls: done, elapsedMs, heapMB }) + "\n")
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`heapProbe: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
    process.exit(1)
  }
)
