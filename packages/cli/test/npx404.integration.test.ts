/**
 * Issue 26, item 7: `npx` for a package that does not exist. The ledger quotes npm's `404 Not Found` line, not the
 * log-file footer below it, and the server is started once: a 404 from the registry is not retried.
 */
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { run, tempDir, writeConfig } from "./CliProcess.ts"

// What npx (npm 11.19) writes for `npx -y @acme/nope`, verbatim but for the package name and the log's path.
const NPM_404 = [
  "npm error code E404",
  "npm error 404 Not Found - GET https://registry.npmjs.org/@acme%2fnope",
  "npm error 404",
  "npm error 404  The requested resource '@acme/nope@*' could not be found or you do not have permission to access it.",
  "npm error 404",
  "npm error 404 Note that you can also install from a",
  "npm error 404 tarball, folder, http url, or git url.",
  "npm error A complete log of this run can be found in: /home/me/.npm/_logs/2026-01-01T00_00_00_000Z-debug-0.log"
]

describe("mcp-fleet status: an npx package that does not exist", () => {
  it.concurrent("quotes the 404 line, not npm's log-file footer, and starts the server once", async (ctx) => {
    const starts = join(await tempDir(ctx), "starts.txt")
    // Each start appends a line to `starts`, then prints npm's 404 and exits 1, as npx does.
    const script = `require("node:fs").appendFileSync(${JSON.stringify(starts)}, "start\\n"); ` +
      `for (const line of ${JSON.stringify(NPM_404)}) console.error(line); process.exit(1)`
    const config = await writeConfig(ctx, { nope: { command: process.execPath, args: ["-e", script] } })
    const result = await run(ctx, ["status", "--config", config])
    expect(result.code).toBe(0)
    const line = result.stdout.split("\n").find((l) => l.startsWith("nope: "))
    expect(line).toMatch(
      /^nope: offline · not retried · the package does not exist in the registry: exit code 1, 'npm error 404 Not Found - GET https:\/\/registry\.npmjs\.org\/@acme%2fnope'/
    )
    expect(line).not.toContain("A complete log")
    expect(result.stderr).toContain(
      "mcp-fleet: MCP server \"nope\" names a package that does not exist in the registry (npm answered 404; not retried); last stderr:\n  [nope] npm error code E404\n"
    )
    expect(await readFile(starts, "utf8")).toBe("start\n")
  })
})
