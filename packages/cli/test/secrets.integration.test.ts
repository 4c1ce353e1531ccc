/**
 * The CLI's output for servers that leak their environment (`leak-env`) and echo their arguments: a config `env`
 * value (decoded as `Redacted`) is `<redacted>` on stdout and stderr, in `call` errors and in `status`, whether the
 * server answered with an error or died (issue 11, item 5).
 */
import { describe, expect, it } from "vitest"
import { fakeServer, run, writeConfig } from "./CliProcess.ts"

const SECRET = "cli-secret-9c2d-never-print"

describe("mcp-fleet never prints a secret a server leaks", () => {
  it.concurrent("call: the server's error echoes its env and the arguments; both show <redacted>", async (ctx) => {
    const config = await writeConfig(ctx, {
      leaky: fakeServer({ modes: ["leak-env"] }, { env: { A_TOKEN: "${MY_SECRET}" } })
    })
    const result = await run(ctx, ["call", "leaky", "echo", "--args", JSON.stringify({ t: SECRET }), "-c", config], {
      // A short PATH, so that the bounded (500-character) error message still reaches the echoed arguments.
      env: { MY_SECRET: SECRET, PATH: "/usr/bin:/bin" }
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("A_TOKEN=<redacted>")
    expect(result.stderr).toContain("failed with arguments {\"t\":\"<redacted>\"}")
    expect(result.stdout + result.stderr).not.toContain(SECRET)
  })

  it.concurrent("status: a server that died with the env in its last stderr line shows <redacted>", async (ctx) => {
    const config = await writeConfig(ctx, {
      dying: fakeServer({ modes: ["leak-env"], crashAfter: 2 }, { env: { A_TOKEN: "${MY_SECRET}" } })
    })
    const result = await run(ctx, ["status", "--config", config, "--wait", "2s"], { env: { MY_SECRET: SECRET } })
    expect(result.stdout + result.stderr).toContain("<redacted>")
    expect(result.stdout + result.stderr).not.toContain(SECRET)
  })
})
