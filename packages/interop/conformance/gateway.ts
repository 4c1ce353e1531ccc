/**
 * A conformance target: `mcp-fleet serve --http 127.0.0.1:0 --prefix conditional` in front of the fixture upstream,
 * the fleet's only server (so no name is prefixed: none is offered twice). Prints the gateway's `{"url":…}` line on stdout once it listens; SIGTERM stops
 * the gateway, then the upstream.
 *
 *   node conformance/gateway.ts link=http    # the upstream served over HTTP (servers/conformance-upstream.mjs)
 *   node conformance/gateway.ts link=stdio   # the upstream a child of the gateway, over stdio
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

const here = Path.dirname(fileURLToPath(import.meta.url))
const fixture = Path.join(here, "..", "servers", "conformance-upstream.mjs")
const cli = Path.join(here, "..", "..", "cli", "bin", "mcp-fleet.mjs")
const link = process.argv.slice(2).find((arg) => arg.startsWith("link="))?.slice(5) ?? "http"
const dir = mkdtempSync(Path.join(tmpdir(), "mcp-fleet-gateway-conformance-"))
const children: Array<ReturnType<typeof spawn>> = []

/** Resolves with the `url` of the first JSON line `child` prints. */
const urlOf = (child: ReturnType<typeof spawn>, name: string) =>
  new Promise<string>((resolve, reject) => {
    if (child.stdout === null) return reject(new Error(`${name} has no stdout`))
    createInterface({ input: child.stdout }).on("line", (line) => {
      const parsed: unknown = line.startsWith("{") ? JSON.parse(line) : undefined
      if (typeof parsed === "object" && parsed !== null && "url" in parsed && typeof parsed.url === "string") {
        resolve(parsed.url)
      }
    })
    child.once("exit", (code) => reject(new Error(`${name} exited (${code}) before it listened`)))
  })

const stop = async () => {
  for (const child of children.reverse()) {
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    await exited
  }
  rmSync(dir, { recursive: true, force: true })
  process.exit(0)
}
process.on("SIGTERM", () => void stop())
process.on("SIGINT", () => void stop())

let upstream: Record<string, unknown>
if (link === "stdio") {
  upstream = { command: process.execPath, args: [fixture, "stdio"] }
} else {
  const child = spawn(process.execPath, [fixture], { stdio: ["pipe", "pipe", "inherit"] })
  children.push(child)
  upstream = { url: await urlOf(child, "the upstream") }
}
const config = Path.join(dir, "mcp.json")
writeFileSync(config, JSON.stringify({ mcpServers: { upstream } }))
const gateway = spawn(process.execPath, [
  cli,
  "serve",
  "--config",
  config,
  "--http",
  "127.0.0.1:0",
  "--prefix",
  "conditional"
], {
  stdio: ["ignore", "pipe", "inherit"]
})
children.push(gateway)
process.stdout.write(`${JSON.stringify({ url: await urlOf(gateway, "the gateway") })}\n`)
