/**
 * A profiling driver: one client, one call loop (or scan loop) against the echo server, for `node --cpu-prof`.
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof src/profileDriver.ts --client=fleet --concurrency=64 --bytes=64 --ms=3000
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof src/profileDriver.ts --client=fleet --scan --ms=3000
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof src/profileDriver.ts --client=fleet --typed --ms=3000
 *
 * `--typed`: every tool declares an `outputSchema` and `echo` answers `structuredContent` (the `c64s` and `list-2000`
 * shape); the calls follow one listing, so the client checks them.
 *
 * @since 0.0.0
 */
import { callLoop } from "./cells/callCell.ts"
import { clientEntries } from "./clients/registry.ts"
import { echoLaunch } from "./EchoServer.ts"

const arg = (name: string, fallback: string): string => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`))
  return found === undefined ? fallback : found.slice(name.length + 3)
}

const clientId = arg("client", "fleet")
const entry = clientEntries.find((e) => e.id === clientId)
if (entry === undefined) throw new Error(`unknown client ${clientId}`)
const adapter = await entry.load()
const scan = process.argv.includes("--scan")
const typed = process.argv.includes("--typed")
const session = await adapter.start(
  echoLaunch({ ...(scan ? { tools: 2000, pageSize: 100 } : {}), ...(typed ? { outputSchemas: true } : {}) })
)
if (typed) await session.listAll()
const ms = Number(arg("ms", "3000"))
if (scan) {
  let scans = 0
  const until = performance.now() + ms
  while (performance.now() < until) {
    await session.listAll()
    scans++
  }
  process.stdout.write(`${clientId}: ${(scans / (ms / 1000)).toFixed(1)} scans/s\n`)
} else {
  const latencies = await callLoop(
    session,
    "x".repeat(Number(arg("bytes", "64"))),
    Number(arg("concurrency", "64")),
    performance.now() + ms
  )
  process.stdout.write(`${clientId}: ${Math.round(latencies.length / (ms / 1000))} calls/s\n`)
}
await session.close()
