/**
 * Issue 26, item 2: the installed CLI's launcher (`bin/mcp-fleet.mjs`, without `mcp-fleet.ts` beside it) checks the
 * Node its package's `engines` names and says so in one line (exit 1) on an older one, as it does from the sources.
 * An installed layout is laid out in a temporary folder whose `engines` asks for a Node newer than this one; the real
 * Node 20 check of the installed package is `scripts/registry-install.mjs`'s.
 */
import { copyFile, mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { run, tempDir } from "./CliProcess.ts"

const launcher = fileURLToPath(new URL("../bin/mcp-fleet.mjs", import.meta.url))

const installed = async (ctx: Parameters<typeof tempDir>[0], engines: string) => {
  const dir = await tempDir(ctx)
  await mkdir(join(dir, "bin"))
  await mkdir(join(dir, "dist", "bin"), { recursive: true })
  await copyFile(launcher, join(dir, "bin", "mcp-fleet.mjs"))
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "@mcp-fleet/cli", engines: { node: engines } }))
  // A stand-in for the bundle: it says it ran.
  await writeFile(join(dir, "dist", "bin", "mcp-fleet.bundle.js"), "console.log('the bundle ran')\n")
  return join(dir, "bin", "mcp-fleet.mjs")
}

describe("the installed mcp-fleet launcher", () => {
  it.concurrent("on a Node older than its engines: one line naming the Node it needs, exit 1; else the bundle", async (ctx) => {
    const [old, current] = await Promise.all([installed(ctx, ">=99.1"), installed(ctx, ">=22.18")])
    const [refused, ran] = await Promise.all([
      run(ctx, ["--version"], { bin: old }),
      run(ctx, ["--version"], { bin: current })
    ])
    expect(refused.code).toBe(1)
    expect(refused.stdout).toBe("")
    expect(refused.stderr).toBe(
      `mcp-fleet: needs Node >= 99.1, this is ${process.version}: install Node 99 or later (https://nodejs.org, or nvm install 99) and run mcp-fleet with it\n`
    )
    expect(ran.code).toBe(0)
    expect(ran.stdout).toBe("the bundle ran\n")
  })
})
