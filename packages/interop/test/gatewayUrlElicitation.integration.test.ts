/**
 * `-32042` (URL elicitation required) through `mcp-fleet serve`: server-everything's `trigger-url-elicitation` on
 * its error path, called by the official SDK client 1.32.2 (over stdio) that declares URL-mode elicitation. The
 * gateway's upstream client hands the required URL to the host (an `elicitation/create` in URL mode); when the host
 * accepts, the gateway retries the call once and the host gets its result; when the host declines, the host gets the
 * `-32042` itself, with the elicitation, to complete as it sees fit (the SDK raises `UrlElicitationRequiredError`).
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  UrlElicitationRequiredError
} from "@modelcontextprotocol/sdk/types.js"
import { Effect, FileSystem } from "effect"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as ReferenceServers from "../src/ReferenceServers.ts"

const cli = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "..", "cli", "bin", "mcp-fleet.mjs")
const TOOL = "everything__trigger-url-elicitation"

/** An SDK host that answers every URL elicitation with `action`, recording the URLs it was shown. */
const host = (action: "accept" | "decline") =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.makeTempDirectoryScoped({ prefix: "mcp-fleet-gateway-url-" })
    const config = Path.join(dir, "mcp.json")
    const { args, command, env } = ReferenceServers.command("everything", dir)
    yield* fs.writeFileString(config, JSON.stringify({ mcpServers: { everything: { command, args, env } } }))
    const urls: Array<string> = []
    const client = new Client({ name: "sdk-host", version: "1.32.2" }, {
      capabilities: { elicitation: { form: {}, url: {} } }
    })
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as { readonly url?: string }
      if (params.url !== undefined) urls.push(params.url)
      return { action }
    })
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, "serve", "--config", config],
      stderr: "inherit"
    })
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(transport)),
      () => Effect.promise(() => client.close())
    )
    // Listed once the upstream is ready (re-listed on each list_changed).
    yield* Effect.promise(() =>
      new Promise<void>((resolve) => {
        const check = async () => {
          if ((await client.listTools()).tools.some((t) => t.name === TOOL)) resolve()
        }
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => void check())
        void check()
      })
    )
    return { client, urls }
  })

const args = (id: string) => ({ url: "https://example.com/consent", errorPath: true, elicitationId: id })

describe("-32042 through mcp-fleet serve", { timeout: 120_000 }, () => {
  it.live("the host accepts the required URL: the gateway retries once and the host gets the result", () =>
    Effect.gen(function*() {
      const { client, urls } = yield* host("accept")
      const result = yield* Effect.promise(() => client.callTool({ name: TOOL, arguments: args("gw-accept") }))
      assert.include(JSON.stringify(result.content), "User completed the URL elicitation flow")
      assert.deepStrictEqual(urls, ["https://modelcontextprotocol.io", "https://example.com/consent"])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("the host declines: the host gets the -32042 with the elicitation", () =>
    Effect.gen(function*() {
      const { client, urls } = yield* host("decline")
      const error = yield* Effect.flip(
        Effect.tryPromise(() => client.callTool({ name: TOOL, arguments: args("gw-decline") }))
      )
      const cause = error.cause
      assert.instanceOf(cause, UrlElicitationRequiredError)
      if (!(cause instanceof UrlElicitationRequiredError)) return
      assert.strictEqual(cause.code, -32042)
      assert.deepStrictEqual(cause.elicitations.map((e) => e.url), ["https://modelcontextprotocol.io"])
      assert.deepStrictEqual(urls, ["https://modelcontextprotocol.io"])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
