/**
 * Issue 24, item 9, through the CLI: `mcp-fleet status` with a remote entry whose server answers every request
 * with a 500 body that echoes the `Authorization` header, the token across the 160-character cut of the error's
 * excerpt. Before the fix, 17 of the token's 24 characters showed on stderr. Over real HTTP on 127.0.0.1.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import { run, writeConfig } from "./CliProcess.ts"

const TOKEN = "tok_Z9qX3vK7mW2pL5nR8sT4"

/** The longest piece of the token that `text` shows. */
const shown = (text: string): string => {
  let best = ""
  for (let start = 0; start < TOKEN.length; start++) {
    for (let end = TOKEN.length; end > start + best.length; end--) {
      if (text.includes(TOKEN.slice(start, end))) best = TOKEN.slice(start, end)
    }
  }
  return best
}

describe("mcp-fleet status: a server echoing the Authorization header across an excerpt's cut", () => {
  it.concurrent("stdout and stderr show no piece of the token of 8 characters or more", async (ctx) => {
    const server = Http.createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        // The token from 143 to 167 of the body: the excerpt's 160-character cut falls after 17 of its characters.
        const body = `${"x".repeat(143 - "Authorization: Bearer ".length)}Authorization: ${
          req.headers["authorization"]
        }`
        res.writeHead(500, { "content-type": "text/plain" }).end(`${body} ${"y".repeat(200)}`)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    ctx.onTestFinished(() =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
    )
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
    const config = await writeConfig(ctx, { echoing: { url, headers: { Authorization: "Bearer ${ECHO_TOKEN}" } } })
    const result = await run(ctx, ["status", "--config", config, "--wait", "2s"], { env: { ECHO_TOKEN: TOKEN } })
    const output = `${result.stdout}${result.stderr}`
    expect(output).toContain("HTTP 500")
    expect(shown(output).length, `the output shows ${JSON.stringify(shown(output))}: ${output}`).toBeLessThan(8)
  })
})
