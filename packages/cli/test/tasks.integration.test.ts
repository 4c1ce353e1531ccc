/**
 * Tasks through the CLI: `call` on a tool that runs as a task (the fake server's `tasks` mode: `research`, one
 * status per step) shows each status while it waits — a line on stderr per status on a pipe, the live line on a
 * terminal — then prints the result as for any call; `mcp-fleet tasks --server S` lists a server's tasks, in text
 * and as JSON, and says why a server has none or cannot list them.
 */
import { execFile } from "node:child_process"
import { describe, expect, it } from "vitest"
import { BIN, fakeServer, referenceServer, run, writeConfig } from "./CliProcess.ts"
import { REMOTE_TASK, remotePeer } from "./remotePeer.ts"

/** Runs the binary under `script`, so that its stdout and stderr are a terminal; resolves with what it drew. */
const onTerminal = (args: ReadonlyArray<string>): Promise<string> =>
  new Promise((resolve, reject) => {
    const command = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ")
    execFile("script", ["-q", "-e", "-c", command, "/dev/null"], { encoding: "utf8" }, (error, stdout) =>
      error !== null ? reject(error) : resolve(stdout))
  })

describe("mcp-fleet and tasks", () => {
  it.concurrent("call on server-everything's task tool: its stages on stderr, its report on stdout", async (ctx) => {
    const config = await writeConfig(ctx, {
      everything: { command: process.execPath, args: [referenceServer("everything")] }
    })
    const args = ["call", "everything", "simulate-research-query", "--args", "{\"topic\":\"tides\"}"]
    const result = await run(ctx, [...args, "--config", config])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("# Research Report: tides")
    const lines = result.stderr.trimEnd().split("\n").filter((l) => l.includes(" task "))
    expect(lines[0]).toMatch(/^mcp-fleet: everything__simulate-research-query task \S+ working/)
    expect(lines.at(-1)).toMatch(/^mcp-fleet: everything__simulate-research-query task \S+ completed/)
    expect(new Set(lines.map((l) => l.split(" ")[3])).size, "one task").toBe(1)
    expect(lines.length, "a line per stage").toBeGreaterThan(2)
  })

  it.concurrent("call on a pipe: one stderr line per task status, then the result on stdout", async (ctx) => {
    const config = await writeConfig(ctx, { lab: fakeServer({ modes: ["tasks"] }) })
    const args = ["call", "lab", "research", "--args", "{\"topic\":\"tides\",\"steps\":2,\"interval\":50}"]
    const result = await run(ctx, [...args, "--config", config])
    expect(result.code).toBe(0)
    expect(result.stdout).toBe("researched tides in 2 steps\n")
    const lines = result.stderr.trimEnd().split("\n")
    expect(lines[0]).toMatch(/^mcp-fleet: lab__research task task-\d+-1 working · step 0 of 2$/)
    expect(lines).toContainEqual(expect.stringMatching(/ working · step 1 of 2$/))
    expect(lines.at(-1)).toMatch(/^mcp-fleet: lab__research task task-\d+-1 completed · step 2 of 2$/)
  })

  it.concurrent("call on a terminal draws each task status in the live line, cleared before the result", async (ctx) => {
    const config = await writeConfig(ctx, { lab: fakeServer({ modes: ["tasks"] }) })
    const drawn = await onTerminal([
      "call",
      "lab",
      "research",
      "--args",
      "{\"topic\":\"tides\",\"steps\":1,\"interval\":50}",
      "--config",
      config
    ])
    const redraws = drawn.split("\r\u001b[K")
    expect(redraws).toContainEqual(expect.stringMatching(/^lab__research task task-\d+-1 working · step 0 of 1/))
    expect(redraws).toContainEqual(expect.stringMatching(/^lab__research task task-\d+-1 completed · step 1 of 1/))
    expect(drawn).toContain("\r\u001b[Kresearched tides in 1 steps")
  })

  it.concurrent("tasks --server: a remote server's tasks in text and JSON", async (ctx) => {
    const remote = await remotePeer(ctx)
    const config = await writeConfig(ctx, { remote: { url: remote.url } })
    const text = await run(ctx, ["tasks", "--server", "remote", "--config", config])
    expect(text.code).toBe(0)
    expect(text.stdout).toBe("remote-task-1  working  2026-01-01T00:01:00Z  half way\n")
    expect(text.stderr).toBe("")
    const json = await run(ctx, ["tasks", "--server", "remote", "--json", "--config", config])
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual({
      server: "remote",
      tasks: [{
        taskId: REMOTE_TASK.taskId,
        status: "working",
        statusMessage: "half way",
        createdAt: REMOTE_TASK.createdAt,
        lastUpdatedAt: REMOTE_TASK.lastUpdatedAt,
        ttlMs: 60000,
        pollIntervalMs: 1000
      }]
    })
  })

  it.concurrent("tasks --server: a stdio server has none (started for the command); one without tasks.list, an error", async (ctx) => {
    const config = await writeConfig(ctx, { lab: fakeServer({ modes: ["tasks"] }), plain: fakeServer() })
    const lab = await run(ctx, ["tasks", "--server", "lab", "--config", config])
    expect(lab.code).toBe(0)
    expect(lab.stdout).toBe("")
    expect(lab.stderr).toBe(
      "mcp-fleet: lab has no tasks\nmcp-fleet: lab runs over stdio and was started for this command: its tasks live only as long as this process\n"
    )
    const plain = await run(ctx, ["tasks", "--server", "plain", "--json", "--config", config])
    expect(plain.code).toBe(1)
    expect(plain.stdout).toBe("")
    expect(plain.stderr).toBe(
      "mcp-fleet: MCP server \"plain\" does not declare the \"tasks.list\" capability, so tasks/list was not sent.\n"
    )
  })
})
