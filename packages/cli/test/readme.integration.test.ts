import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { BIN } from "./CliProcess.ts"

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
