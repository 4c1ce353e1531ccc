import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { BIN, referenceServer, run, start, tempDir } from "./CliProcess.ts"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")

/** The "Try it" block: each line a command run at the repository root, ending in `# exit N`. */
const tryIt = (/## Try it[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => {
    const match = /^(.*?)\s+# exit (\d+)$/.exec(line)
    if (match === null) throw new Error(`a Try it line without "# exit N": ${line}`)
    return { command: match[1]!, code: Number(match[2]) }
  })

const helpOf = (command: string) =>
  new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      [BIN, command, "--help"],
      { encoding: "utf8" },
      (error, stdout) => error === null ? resolve(stdout) : reject(error)
    )
  )

describe("the CLI README documents what the binary offers", () => {
  it.concurrent.for(["status", "tools", "call", "demo"])(
    "every flag of %s --help, and every exit code",
    async (command) => {
      const help = await helpOf(command)
      const flags = [...(help.split("GLOBAL FLAGS")[0] ?? "").matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]!)
      if (command !== "demo") expect(flags.length).toBeGreaterThan(2)
      for (const flag of flags) expect(readme, `${command} ${flag}`).toContain(`\`${flag}`)
      for (const code of [0, 1, 2, 129, 130, 143]) expect(readme).toContain(`| \`${code}\` |`)
    }
  )
})

describe("the CLI README's commands, run as written", () => {
  it("the Try it block has commands", () => {
    expect(tryIt.length).toBeGreaterThan(3)
  })

  it.concurrent.for(tryIt)("$command exits $code", async ({ code, command }) => {
    const result = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(
        "sh",
        ["-c", command],
        { cwd: root, encoding: "utf8" },
        (error, _stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code), stderr })
      )
    )
    expect(result.code, result.stderr).toBe(code)
  })
})

/**
 * Every `mcp-fleet` command line in the sh blocks of the root README and the CLI README (but the Try it block, run
 * above), as written: `node packages/cli/bin/mcp-fleet.ts …` or `./fleet mcp-fleet …` becomes the binary under test,
 * `~/.cursor/mcp.json` a config of this test's own whose `memory` is the reference memory server (also as `.mcp.json`
 * in the working directory, for the lines without `--config`). A `--watch` line is stopped with Ctrl-C (exit 130).
 */
const rootReadme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8")
const shLines = (text: string) =>
  [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split("\n")).map((line) => line.trim())
const tryItLines = new Set(tryIt.map((t) => t.command))

/** The words of a command line as sh splits them (plain words and '…' quotes), without its trailing # comment. */
const words = (line: string): ReadonlyArray<string> =>
  [...line.replace(/\s+#.*$/, "").matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!)

const shown = [...shLines(rootReadme), ...shLines(readme)]
  .filter((line) => /(mcp-fleet\.m?ts|fleet mcp-fleet) /.test(line))
  .filter((line) => ![...tryItLines].some((command) => line.startsWith(command)))
  .map((line) => {
    const all = words(line)
    const at = all.findIndex((w) => /mcp-fleet(\.m?ts)?$/.test(w) && !w.startsWith("./fleet"))
    return { line, args: all.slice(at + 1) }
  })

describe("every mcp-fleet command the READMEs show, run as written", () => {
  it("there are such commands", () => {
    expect(shown.length).toBeGreaterThan(6)
  })

  it.concurrent.for(shown)("$line", async ({ args }, ctx) => {
    const dir = await tempDir(ctx)
    const config = JSON.stringify({
      mcpServers: {
        memory: {
          command: process.execPath,
          args: [referenceServer("memory")],
          env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") }
        }
      }
    })
    const path = join(dir, "mcp.json")
    await writeFile(path, config)
    await writeFile(join(dir, ".mcp.json"), config)
    const real = args.map((a) => (a === "~/.cursor/mcp.json" ? path : a))
    if (real.includes("--watch")) {
      const cli = start(ctx, real, { cwd: dir })
      await cli.stdoutLine((l) => l.startsWith("MCP: 1 server"))
      cli.child.kill("SIGINT")
      const result = await cli.finished
      expect(result.code, result.stderr).toBe(130)
      return
    }
    const result = await run(ctx, real, { cwd: dir })
    expect(result.code, `${real.join(" ")}\n${result.stdout}${result.stderr}`).toBe(0)
  })
})
