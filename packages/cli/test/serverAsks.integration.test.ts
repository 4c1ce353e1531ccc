/**
 * `mcp-fleet call` against server-everything when the server asks the CLI for something during the call: its
 * sampling tool (`--sampling`: the request shown on stderr, refused off a terminal or with `decline`) and its URL
 * elicitation's `-32042` error path (`--elicitation decline`: the prerequisite URL shown, declined, and the call's
 * failure names the elicitation).
 */
import { describe, expect, it } from "vitest"
import { referenceServer, run, writeConfig } from "./CliProcess.ts"

const everything = () => ({ command: process.execPath, args: [referenceServer("everything"), "stdio"] })

describe("mcp-fleet call: a server that asks for sampling or a URL", () => {
  it.concurrent("trigger-sampling-request off a terminal: the request is shown, then refused (--sampling ask)", async (ctx) => {
    const config = await writeConfig(ctx, { everything: everything() })
    const args = JSON.stringify({ prompt: "say hi", maxTokens: 5 })
    const result = await run(ctx, ["call", "everything", "trigger-sampling-request", "--args", args, "-c", config])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      [
        "mcp-fleet: everything asks to sample (at most 5 tokens):",
        "  system: You are a helpful test server.",
        "  user: Resource trigger-sampling-request context: say hi",
        "mcp-fleet: refused: there is no terminal to answer on"
      ].join("\n")
    )
    // The server's tool reports the refusal (the spec's "user rejected", code -1) as its error.
    expect(result.stderr).toContain("User rejected sampling request: there is no terminal to answer on")
  })

  it.concurrent("--sampling decline refuses without asking", async (ctx) => {
    const config = await writeConfig(ctx, { everything: everything() })
    const args = JSON.stringify({ prompt: "say hi", maxTokens: 5 })
    const result = await run(ctx, [
      "call",
      "everything",
      "trigger-sampling-request",
      "--args",
      args,
      "--sampling",
      "decline",
      "-c",
      config
    ])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("mcp-fleet: refused: --sampling decline")
    expect(result.stderr).toContain("User rejected sampling request: --sampling decline")
  })

  it.concurrent("-32042, declined: the prerequisite URL is shown, and the failure names the elicitation", async (ctx) => {
    const config = await writeConfig(ctx, { everything: everything() })
    const args = JSON.stringify({ url: "https://example.com/consent", errorPath: true })
    const result = await run(ctx, [
      "call",
      "everything",
      "trigger-url-elicitation",
      "--args",
      args,
      "--elicitation",
      "decline",
      "-c",
      config
    ])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("open: https://modelcontextprotocol.io")
    expect(result.stderr).toContain(
      "MCP server \"everything\" needs the user to complete 1 URL elicitation(s) (modelcontextprotocol.io) before tools/call can proceed: the user declined."
    )
  })
})
