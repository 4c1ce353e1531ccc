import { describe, expect, it } from "vitest"
import { childProcesses, fakeServer, isAlive, start, writeConfig } from "./CliProcess.ts"

// Closing a terminal sends SIGHUP. The servers must be shut down as on SIGTERM — even one that ignores the end of
// its stdin and SIGTERM (it is killed after the grace period) — and the exit code says which signal it was.
describe("mcp-fleet: signals stop every server", () => {
  const cases = [["SIGHUP", 129], ["SIGTERM", 143], ["SIGINT", 130]] as const
  it.concurrent.for(cases)(
    "%s: every server is shut down, even one that ignores stdin EOF; exit %i",
    async ([signal, code], ctx) => {
      const config = await writeConfig(ctx, {
        stubborn: fakeServer({ modes: ["ignore-sigterm"] }),
        plain: fakeServer()
      })
      const cli = start(ctx, ["status", "--watch", "--config", config])
      await cli.stdoutLine((line) => line.startsWith("MCP: 2 servers (2 ready)") || /\(2 ready\)/.test(line))
      const servers = (await childProcesses(cli.pid)).filter((p) => p.args.includes("server.mjs"))
      expect(servers).toHaveLength(2)
      cli.child.kill(signal)
      const result = await cli.finished
      expect(result.code).toBe(code)
      for (const server of servers) expect(isAlive(server.pid), `${server.args} still runs`).toBe(false)
    }
  )
})

// Issue 26, item 10: Ctrl-C with a server that ignores it says whom it waits for and until when; a second Ctrl-C
// kills at once.
describe("mcp-fleet: Ctrl-C with a server that ignores signals", () => {
  it.concurrent("names the server and its deadline in one line; a second Ctrl-C kills it at once", async (ctx) => {
    const config = await writeConfig(ctx, {
      stubborn: fakeServer({ modes: ["ignore-sigterm"] }),
      plain: fakeServer()
    })
    const cli = start(ctx, ["status", "--watch", "--config", config])
    await cli.stdoutLine((line) => /\(2 ready\)/.test(line))
    const servers = (await childProcesses(cli.pid)).filter((p) => p.args.includes("server.mjs"))
    expect(servers).toHaveLength(2)
    cli.child.kill("SIGINT")
    const notice = await cli.stderrLine((line) => line.includes("waiting for"))
    // (On a loaded machine the well-behaved server may not have exited half a second in: then it is named too.)
    expect(notice).toMatch(
      /^mcp-fleet: waiting for (plain and )?stubborn to exit; killing (it|them) in [1-4] s \(Ctrl-C again kills (it|them) now\)$/
    )
    cli.child.kill("SIGINT")
    await cli.stderrLine((line) => /^mcp-fleet: killing (plain and )?stubborn now$/.test(line))
    const result = await cli.finished
    expect(result.code).toBe(130)
    // One notice, about the server that ignores its stdin and SIGTERM only.
    expect(result.stderr.match(/waiting for/g)).toHaveLength(1)
    for (const server of servers) expect(isAlive(server.pid), `${server.args} still runs`).toBe(false)
  })
})
