import { writeFile } from "node:fs/promises"
import { describe, expect, it } from "vitest"
import { childProcesses, fakeServer, isAlive, start, writeConfig } from "./CliProcess.ts"

/** Resolves when the process's stderr has contained `text` (rejects if it exits first). */
const stderrIncludes = (child: ReturnType<typeof start>, text: string) =>
  new Promise<void>((resolve, reject) => {
    const check = () => {
      if (child.output().stderr.includes(text)) {
        child.child.stderr?.off("data", check)
        resolve()
      }
    }
    child.child.stderr?.on("data", check)
    child.finished.then(() => reject(new Error(`exited before stderr said ${JSON.stringify(text)}`)), reject)
    check()
  })

describe("mcp-fleet status --watch follows the config file", () => {
  it(
    "an edit that adds a server shows it in the watched status; an invalid edit is reported and changes nothing",
    async (ctx) => {
      const config = await writeConfig(ctx, { alpha: fakeServer() })
      const cli = start(ctx, ["status", "--watch", "--log-level", "debug", "--config", config])
      await stderrIncludes(cli, "following")
      await cli.stdoutLine((line) => /alpha: ready · 9 tools/.test(line))
      const before = (await childProcesses(cli.pid)).filter((p) => p.args.includes("server.mjs"))
      expect(before).toHaveLength(1)
      await writeFile(config, "{ \"mcpServers\": { \"alpha\": ")
      await stderrIncludes(cli, "was not applied (the servers keep running as they were)")
      await writeFile(config, JSON.stringify({ mcpServers: { alpha: fakeServer(), beta: fakeServer() } }, null, 2))
      await cli.stdoutLine((line) => /^\[\+\d+\.\d\ds\] beta: ready · 9 tools/.test(line))
      await cli.stdoutLine((line) => /MCP: 2 servers \(2 ready\), 18 tools/.test(line))
      const servers = (await childProcesses(cli.pid)).filter((p) => p.args.includes("server.mjs"))
      expect(servers).toHaveLength(2)
      expect(servers.map((p) => p.pid)).toContain(before[0]!.pid)
      cli.child.kill("SIGINT")
      const result = await cli.finished
      expect(result.code).toBe(130)
      expect(result.stdout).not.toMatch(/alpha: offline/)
      for (const server of servers) expect(isAlive(server.pid)).toBe(false)
    },
    120_000
  )
})
