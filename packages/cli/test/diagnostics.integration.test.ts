import { chmod, readFile, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { fakeServer, run, tempDir, writeConfig } from "./CliProcess.ts"

/** A config entry running a small node script (written to a temporary file). */
const script = async (ctx: Parameters<typeof tempDir>[0], source: string) => {
  const path = join(await tempDir(ctx), "server.js")
  await writeFile(path, source)
  return { command: process.execPath, args: [path] }
}

// What npx prints when a package does not exist: the explanation is well above the last line.
const NPX_404 = `
console.error("npm error code E404")
console.error("npm error 404 Not Found - GET https://registry.npmjs.org/@acme%2fno-such-server - Not found")
console.error("npm error 404")
console.error("npm error 404  '@acme/no-such-server@*' is not in this registry.")
console.error("npm error A complete log of this run can be found in: /home/ada/.npm/_logs/debug-0.log")
process.exit(1)
`

// A server that exits at every start and says why, with a stack line after the reason (npx's 404 is not retried at
// all: npx404.integration.test.ts).
const CRASH = `
console.error("starting the weather server")
console.error("Error: WEATHER_API_KEY is not set (code ENOKEY)")
console.error("    at main (/srv/weather/index.js:12:11)")
process.exit(1)
`

// A server that writes why it is slow, then never answers initialize.
const STUCK = `
console.error("downloading model weights (1/3)")
console.error("downloading model weights (2/3)")
setInterval(() => {}, 1000)
`

describe("mcp-fleet: a CLI that says what is happening", () => {
  it.concurrent("--verbose shows each server's stderr, prefixed with its name", async (ctx) => {
    const config = await writeConfig(ctx, { alpha: fakeServer(), beta: fakeServer() })
    const [quiet, result] = await Promise.all([
      run(ctx, ["status", "--config", config]),
      run(ctx, ["status", "--verbose", "--config", config])
    ])
    expect(quiet.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(/^\[alpha\] fake-mcp-server: started pid=\d+/m)
    expect(result.stderr).toMatch(/^\[beta\] fake-mcp-server: started pid=\d+/m)
  })

  // This run waits 6 s of wall time by design (the note comes after 5 s): a timeout of its own, above the default.
  it.concurrent("a server stuck starting: after a few seconds its last stderr lines are shown, and again at the end", {
    timeout: 60_000
  }, async (ctx) => {
    const config = await writeConfig(ctx, { stuck: await script(ctx, STUCK) })
    const result = await run(ctx, ["status", "--wait", "6s", "--config", config])
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(
      /^mcp-fleet: stuck is still starting after 5\.\d s; its last stderr lines:\n {2}\[stuck\] downloading model weights \(1\/3\)\n {2}\[stuck\] downloading model weights \(2\/3\)\n/
    )
    expect(result.stderr).toContain(
      [
        "mcp-fleet: not settled after 6 s: stuck (starting)",
        "mcp-fleet: MCP server \"stuck\" was still starting after 6 s (no answer to initialize yet; wait longer with --wait); last stderr:",
        "  [stuck] downloading model weights (1/3)",
        "  [stuck] downloading model weights (2/3)",
        ""
      ].join("\n")
    )
  })

  it.concurrent("a server that crashes at every start: how often, the exit code, and the lines that explain it", async (ctx) => {
    const config = await writeConfig(ctx, { pkg: await script(ctx, CRASH) })
    const [result, strict, call] = await Promise.all([
      run(ctx, ["status", "--config", config]),
      run(ctx, ["status", "--strict", "--config", config]),
      run(ctx, ["call", "pkg", "echo", "--config", config])
    ])
    expect(result.code).toBe(0)
    // The ledger quotes the line that explains the crash (an error with a code), not the stack line after it.
    // (Whether it is seen as a crash loop depends on how fast node starts; the quoted line does not.)
    expect(result.stdout).toMatch(/^pkg: offline · .*Error: WEATHER_API_KEY is not set \(code ENOKEY\)/m)
    expect(result.stdout).not.toContain("at main")
    expect(result.stderr).toContain(
      "mcp-fleet: MCP server \"pkg\" crashed 2 times (exit code 1); last stderr:\n"
    )
    expect(result.stderr).toContain("  [pkg] Error: WEATHER_API_KEY is not set (code ENOKEY)\n")
    expect(result.stderr).not.toContain("--wait")
    // The lines of the last process, not those of every restart one after the other.
    expect(result.stderr.match(/starting the weather server/g)).toHaveLength(1)
    expect(strict.code).toBe(1)
    expect(strict.stderr).toMatch(/mcp-fleet: --strict: not every server is up: pkg \(offline\)\.\n$/)
    expect(call.code).toBe(1)
    expect(call.stderr).toMatch(/^mcp-fleet: MCP server "pkg" crashed 2 times \(exit code 1\); last stderr:\n/)
    expect(call.stderr).toContain("  [pkg] Error: WEATHER_API_KEY is not set (code ENOKEY)")
  })

  it.concurrent("spawn errors in words: not found on PATH, not executable", async (ctx) => {
    const config = await writeConfig(ctx, {
      missing: { command: "mcp-fleet-no-such-command" },
      text: { command: "./a.txt" }
    })
    await writeFile(join(dirname(config), "a.txt"), "not a program\n")
    await chmod(join(dirname(config), "a.txt"), 0o644)
    const result = await run(ctx, ["status", "--config", config])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain(
      "mcp-fleet: MCP server \"missing\" could not be started: command \"mcp-fleet-no-such-command\" was not found on PATH (install it, or fix \"command\" in the config file).\n"
    )
    expect(result.stderr).toContain(
      `mcp-fleet: MCP server "text" could not be started: "${
        join(dirname(config), "a.txt")
      }" is not executable (chmod +x it, or fix "command" in the config file).\n`
    )
    expect(result.stderr).not.toMatch(/NotFound|PermissionDenied/)
  })

  it.concurrent("log lines: the mcp-fleet: prefix, the level and the server's name; no timestamps or fiber ids", async (ctx) => {
    const config = await writeConfig(ctx, { pkg: await script(ctx, NPX_404) })
    const result = await run(ctx, ["status", "--log-level", "debug", "--config", config])
    const logs = result.stderr.split("\n").filter((line) => line.includes("MCP client closed"))
    expect(logs.length).toBeGreaterThan(0)
    for (const line of logs) expect(line).toMatch(/^mcp-fleet: debug: \[pkg\] MCP client closed \(.*\) \(pid=\d+\)$/)
    expect(result.stderr).not.toMatch(/\(#\d+\)|^\[\d\d:\d\d/m)
  })

  it.concurrent("status --json: one document with the summary and every server; --strict exits 0 when all are up", async (ctx) => {
    const config = await writeConfig(ctx, { alpha: fakeServer(), off: fakeServer({}, { disabled: true }) })
    const result = await run(ctx, ["status", "--json", "--strict", "--config", config])
    expect(result.code).toBe(0)
    expect(result.stderr).toBe("")
    const doc = JSON.parse(result.stdout)
    expect(Object.keys(doc)).toEqual(["settled", "summary", "servers"])
    expect(doc.settled).toBe(true)
    expect(doc.summary).toEqual({
      servers: 2,
      ready: 1,
      starting: 0,
      degraded: 0,
      offline: 0,
      disabled: 1,
      unauthorized: 0,
      tools: 9,
      curated: 0,
      external: 9
    })
    expect(doc.servers[0]).toEqual({
      name: "alpha",
      transport: "stdio",
      url: null,
      state: "ready",
      settled: true,
      tools: 9,
      curated: [],
      curatedCount: 0,
      curatedMissing: [],
      attempt: 0,
      maxAttempts: 2,
      gaveUp: false,
      pid: expect.any(Number),
      protocol: { era: "legacy", version: "2025-11-25" },
      lastError: null,
      explanation: null,
      stderr: [expect.stringMatching(/^fake-mcp-server: started pid=\d+/)],
      prompts: null,
      resources: null,
      listing: []
    })
    expect(doc.servers[1]).toMatchObject({
      name: "off",
      state: "disabled",
      pid: null,
      protocol: null,
      explanation: "MCP server \"off\" is disabled in the configuration."
    })
  })
})

describe("mcp-fleet status: the era each server speaks", () => {
  it.concurrent("with protocol at its default, status --json and the status line say each server's era and version", async (ctx) => {
    const config = await writeConfig(ctx, { old: fakeServer(), new: fakeServer({ modes: ["modern"] }) })
    const [json, text] = await Promise.all([
      run(ctx, ["status", "--json", "--config", config]),
      run(ctx, ["status", "--config", config])
    ])
    expect(json.code).toBe(0)
    const doc = JSON.parse(json.stdout)
    const byName = Object.fromEntries(doc.servers.map((s: { name: string }) => [s.name, s]))
    expect(byName.old).toMatchObject({ state: "ready", protocol: { era: "legacy", version: "2025-11-25" } })
    expect(byName.new).toMatchObject({ state: "ready", protocol: { era: "modern", version: "2026-07-28" } })
    expect(text.code).toBe(0)
    const line = (name: string) => text.stdout.split("\n").find((l) => l.startsWith(`${name}: `)) ?? ""
    expect(line("new")).toMatch(/^new: ready · .* · modern 2026-07-28$/)
    // The legacy era is the unmarked one (health().protocol and --json carry its version).
    expect(line("old")).toMatch(/^old: ready · /)
    expect(line("old")).not.toContain("modern")
  })
})

// A minimal MCP server whose one tool returns an image block and some structured content.
const IMAGE_SERVER = `
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n")
let buffer = ""
process.stdin.on("data", (chunk) => {
  buffer += chunk
  let nl
  while ((nl = buffer.indexOf("\\n")) >= 0) {
    const msg = JSON.parse(buffer.slice(0, nl))
    buffer = buffer.slice(nl + 1)
    if (msg.id === undefined) continue
    if (msg.method === "initialize") {
      send({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "img", version: "1" } } })
    } else if (msg.method === "tools/list") {
      send({ jsonrpc: "2.0", id: msg.id, result: { tools: [{ name: "snapshot", inputSchema: { type: "object" } }] } })
    } else if (msg.method === "tools/call") {
      send({ jsonrpc: "2.0", id: msg.id, result: { content: [
        { type: "text", text: "a 4-byte picture" },
        { type: "image", mimeType: "image/png", data: Buffer.from([137, 80, 78, 71]).toString("base64") }
      ] } })
    } else {
      send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "no" } })
    }
  }
})
process.stdin.on("end", () => process.exit(0))
`

describe("mcp-fleet call: names that round-trip, machine-readable results", () => {
  it.concurrent("call server__tool as tools prints it; --json gives the raw blocks; --output writes the image's bytes", async (ctx) => {
    const config = await writeConfig(ctx, { "my__img": await script(ctx, IMAGE_SERVER) })
    const file = join(dirname(config), "out.png")
    const [tools, json, written, unknown] = await Promise.all([
      run(ctx, ["tools", "--config", config]),
      run(ctx, ["call", "my__img__snapshot", "--json", "--config", config]),
      run(ctx, ["call", "my__img", "snapshot", "--output", file, "--config", config]),
      run(ctx, ["call", "nope__snapshot", "--config", config])
    ])
    expect(tools.stdout).toMatch(/^my__img__snapshot\s+\?/)
    expect(json.stderr).toBe("")
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual({
      server: "my__img",
      tool: "snapshot",
      isError: false,
      content: [{ type: "text", text: "a 4-byte picture" }, { type: "image", mimeType: "image/png", data: "iVBORw==" }],
      structuredContent: null
    })
    expect(written.code).toBe(0)
    expect(written.stdout).toBe("a 4-byte picture\n[image image/png, 4 bytes]\n")
    expect(written.stderr).toBe(`mcp-fleet: wrote 4 bytes (image/png) to ${file}\n`)
    expect([...(await readFile(file))]).toEqual([137, 80, 78, 71])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toBe(
      `mcp-fleet: call needs <server> <tool>, or server__tool as \`mcp-fleet tools\` prints it; "nope__snapshot" starts with no server of ${config} followed by "__".\n`
    )
  })
})
