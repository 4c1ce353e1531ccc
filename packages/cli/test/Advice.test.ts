import type { ServerHealth } from "@mcp-fleet/manager"
import { describe, expect, it } from "vitest"
import * as Advice from "../src/Advice.ts"
import * as Diagnostics from "../src/Diagnostics.ts"

const health = (patch: Partial<ServerHealth.ServerHealth>): ServerHealth.ServerHealth => ({
  name: "s",
  state: "starting",
  transport: "stdio",
  url: undefined,
  tools: [],
  curated: [],
  curatedCount: 0,
  curatedMissing: [],
  instructions: undefined,
  lastError: undefined,
  attempt: 0,
  maxAttempts: 2,
  gaveUp: false,
  listChangedPending: false,
  pid: undefined,
  stderrTail: [],
  since: 0,
  ...patch
})

const entry = (command: string) => ({
  name: "s",
  command,
  args: [],
  env: {},
  disabled: false,
  curated: [],
  inheritEnv: false
})

describe("Advice.explain", () => {
  it("a crash by signal, still reconnecting, counts the starts so far and quotes the health's tail", () => {
    const h = health({
      state: "offline",
      attempt: 1,
      lastError: "The process was killed by SIGKILL.",
      stderrTail: ["out of memory"]
    })
    expect(Advice.explain(h, entry("node"), ["older line"], "30 s")).toBe(
      "MCP server \"s\" crashed 1 time (killed by SIGKILL), still reconnecting; last stderr:\n  [s] out of memory"
    )
  })

  it("a crash that wrote nothing says so; an offline server without an exit says its last error", () => {
    const crashed = health({ state: "offline", attempt: 2, gaveUp: true, lastError: "exited with code 3" })
    expect(Advice.explain(crashed, entry("node"), [], "1 s")).toBe(
      "MCP server \"s\" crashed 3 times (exit code 3); it wrote nothing on stderr"
    )
    const closed = health({ state: "offline", lastError: "The server's connection closed." })
    expect(Advice.explain(closed, entry("node"), [], "1 s")).toBe(
      "MCP server \"s\" is offline: The server's connection closed."
    )
  })

  it("spawn failures in words, by kind of command", () => {
    const notFound = "MCP server \"s\" could not be started (x): NotFound: spawn x ENOENT."
    expect(Advice.spawnFailure(notFound, "./bin/x")).toBe(
      "\"./bin/x\" does not exist (fix \"command\" in the config file)"
    )
    expect(Advice.spawnFailure("could not be started (uvx): PermissionDenied", "uvx")).toBe(
      "command \"uvx\" is not executable (chmod +x it, or fix \"command\" in the config file)"
    )
    expect(Advice.spawnFailure("could not be started (x): its working directory", "x")).toBeUndefined()
  })
})

describe("Diagnostics.progressLine", () => {
  it("names the servers starting (for how long) and reconnecting (attempt/max); none when all settled", () => {
    const line = Diagnostics.progressLine([
      health({ name: "slow", since: 1_000 }),
      health({ name: "crashy", state: "offline", attempt: 1 }),
      health({ name: "ok", state: "ready" }),
      health({ name: "gone", state: "offline", gaveUp: true })
    ], 4_200)
    expect(line).toBe("mcp-fleet: waiting for slow starting 3.2 s, crashy reconnecting 1/2…")
    expect(Diagnostics.progressLine([health({ state: "ready" })], 0)).toBeUndefined()
  })
})
