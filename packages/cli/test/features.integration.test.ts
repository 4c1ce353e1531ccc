import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { fakeServer, run, tempDir, writeConfig } from "./CliProcess.ts"

describe("mcp-fleet resources, read, prompts, prompt", () => {
  it.concurrent("resources lists every offering server's resources and templates; a plain server adds none", async (ctx) => {
    const config = await writeConfig(ctx, { docs: fakeServer({ modes: ["features"] }), plain: fakeServer({}) })
    const [text, json] = await Promise.all([
      run(ctx, ["resources", "--config", config]),
      run(ctx, ["resources", "--json", "--config", config])
    ])
    expect(text.code).toBe(0)
    expect(text.stdout.trimEnd().split("\n")).toEqual([
      "docs  fake://text  text  (text/plain)",
      "docs  fake://blob  blob  (application/octet-stream)",
      "docs  fake://item/{name}  item  (template)"
    ])
    expect(json.code).toBe(0)
    const doc = JSON.parse(json.stdout)
    expect(doc.resources.map((r: { server: string; uri: string }) => [r.server, r.uri])).toEqual([
      ["docs", "fake://text"],
      ["docs", "fake://blob"]
    ])
    expect(doc.resourceTemplates).toEqual([{ server: "docs", uriTemplate: "fake://item/{name}", name: "item" }])
    expect(doc.failed).toEqual([])
  })

  it.concurrent("read prints text, writes a blob's bytes to --output, refuses to print bytes", async (ctx) => {
    const config = await writeConfig(ctx, { docs: fakeServer({ modes: ["features"] }) })
    const out = join(await tempDir(ctx), "blob.bin")
    const [textRead, blobRead, blobPrinted, missing] = await Promise.all([
      run(ctx, ["read", "docs", "fake://text", "--config", config]),
      run(ctx, ["read", "docs", "fake://blob", "--output", out, "--config", config]),
      run(ctx, ["read", "docs", "fake://blob", "--config", config]),
      run(ctx, ["read", "docs", "fake://nothing", "--config", config])
    ])
    expect(textRead.code).toBe(0)
    expect(textRead.stdout).toBe("contents of fake://text\n")
    expect(blobRead.code).toBe(0)
    expect([...(await readFile(out))]).toEqual([0, 1, 2, 3, 4, 255])
    expect(blobRead.stderr).toContain(`wrote 6 bytes to ${out}`)
    expect(blobPrinted.code).toBe(1)
    expect(blobPrinted.stderr).toContain("\"fake://blob\" has binary contents; write them with --output FILE")
    expect(missing.code).toBe(1)
    // The server's own "MCP error -32002: " prefix is not repeated after the code (issue 26, item 11).
    expect(missing.stderr).toBe(
      "mcp-fleet: MCP server \"docs\" answered resources/read with error -32002: Resource not found: fake://nothing\n"
    )
  })

  it.concurrent("prompts and prompt; a server without the capability is said so, typed", async (ctx) => {
    const config = await writeConfig(ctx, { docs: fakeServer({ modes: ["features"] }), plain: fakeServer({}) })
    const [listed, rendered, json, refused, badArgs] = await Promise.all([
      run(ctx, ["prompts", "--config", config]),
      run(ctx, ["prompt", "docs", "greet", "--args", "{\"who\":\"Ada\"}", "--config", config]),
      run(ctx, ["prompt", "docs", "greet", "--json", "--config", config]),
      run(ctx, ["prompt", "plain", "greet", "--config", config]),
      run(ctx, ["prompt", "docs", "greet", "--args", "{\"who\":1}", "--config", config])
    ])
    expect(listed.code).toBe(0)
    expect(listed.stdout).toBe("docs  greet  who*  Greets someone.\n")
    expect(rendered.code).toBe(0)
    expect(rendered.stdout).toBe("[user] Hello, Ada!\n")
    expect(JSON.parse(json.stdout)).toMatchObject({ server: "docs", prompt: "greet", description: "A greeting" })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("does not declare the \"prompts\" capability, so prompts/get was not sent")
    expect(badArgs.code).toBe(2)
    expect(badArgs.stderr).toContain("prompt arguments are strings")
  })
})
