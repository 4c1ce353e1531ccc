/**
 * The published executable is a bundle (`scripts/bundle.mjs`, run by prepack): it must behave as the sources do.
 * Bundling takes a while on a loaded machine, hence the test's own timeout. The bundle is built into a temporary directory and run beside `bin/mcp-fleet.ts` on the same config.
 */
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdir, mkdtemp, rm } from "node:fs/promises"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { fakeServer, run, writeConfig } from "./CliProcess.ts"

const script = fileURLToPath(new URL("../scripts/bundle.mjs", import.meta.url))
// Inside the package, as in an install: the bundle's one outside dependency (undici) resolves from its node_modules.
const cache = fileURLToPath(new URL("../node_modules/.cache/", import.meta.url))

const bundle = (out: string) =>
  new Promise<void>((resolve, reject) =>
    execFile(
      process.execPath,
      [script, `--out=${out}`],
      (error, _stdout, stderr) => error === null ? resolve() : reject(new Error(`bundling failed: ${stderr}`))
    )
  )

describe("the bundled mcp-fleet", () => {
  it("prints what the sources print: --version, tools --json, and a config error", async (ctx) => {
    await mkdir(cache, { recursive: true })
    const dist = await mkdtemp(join(cache, "bundle-"))
    ctx.onTestFinished(() => rm(dist, { recursive: true, force: true }))
    // As in the package: dist/bin/ the bundle, dist/fake-server/ the fake server's copy.
    const out = join(dist, "bin")
    await bundle(out)
    expect(existsSync(join(dist, "fake-server", "server.mjs"))).toBe(true)
    const bin = join(out, "mcp-fleet.bundle.js")
    expect(existsSync(bin)).toBe(true)
    // A remote server nobody listens for: the HTTP client (undici, kept outside the bundle) is loaded and fails.
    const config = await writeConfig(ctx, { alpha: fakeServer({ tools: 2 }), gone: { url: "http://127.0.0.1:9/mcp" } })
    for (
      const args of [["--version"], ["tools", "--json", "--config", config], [
        "tools",
        "--config",
        join(cache, "none.json")
      ]]
    ) {
      const [fromBundle, fromSources] = await Promise.all([run(ctx, args, { bin }), run(ctx, args)])
      expect({ code: fromBundle.code, stdout: fromBundle.stdout, stderr: fromBundle.stderr }).toEqual({
        code: fromSources.code,
        stdout: fromSources.stdout,
        stderr: fromSources.stderr
      })
    }
    // The demo's servers are the bundle's own copy of the fake server (the installed CLI has no other).
    const demo = await run(ctx, ["demo"], { bin })
    expect(demo.code, demo.stderr).toBe(0)
    expect(demo.stdout).toContain("demo finished.")
    const tools = await run(ctx, ["tools", "--json", "--config", config], { bin })
    expect(tools.code).toBe(0)
    expect(tools.stdout).toContain("\"alpha__tool_2\"")
    expect(tools.stdout).toContain("\"gone\"")
  }, 180_000)
})
