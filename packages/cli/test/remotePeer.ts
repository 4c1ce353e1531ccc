/**
 * A small Streamable HTTP MCP server on 127.0.0.1 for the CLI's remote-entry tests (JSON answers, one session,
 * `DELETE` accepted), closed with every connection when the test ends.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import type { TestContext } from "vitest"

export interface RemotePeer {
  readonly url: string
  readonly requests: Array<
    { readonly method: string; readonly headers: Http.IncomingHttpHeaders; readonly body: string }
  >
}

/** A task the peer keeps (`tasks/list`: 2025-11-25), for the CLI's `tasks`. */
export const REMOTE_TASK = {
  taskId: "remote-task-1",
  status: "working",
  statusMessage: "half way",
  createdAt: "2026-01-01T00:00:00Z",
  lastUpdatedAt: "2026-01-01T00:01:00Z",
  ttl: 60000,
  pollInterval: 1000
}

/** Serves tools `echo` and `add`, and lists one task, until the test ends. */
export const remotePeer = async (ctx: TestContext): Promise<RemotePeer> => {
  const requests: RemotePeer["requests"] = []
  const server = Http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8")
      requests.push({ method: req.method ?? "", headers: req.headers, body })
      if (req.method !== "POST") return void res.writeHead(req.method === "DELETE" ? 200 : 405).end()
      const msg = JSON.parse(body) as { id?: number; method: string; params?: { arguments?: { text?: string } } }
      if (msg.id === undefined) return void res.writeHead(202).end()
      const reply = (result: unknown) => {
        res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "cli-session" })
        res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }))
      }
      if (msg.method === "initialize") {
        return reply({
          protocolVersion: "2025-11-25",
          capabilities: { tools: {}, tasks: { list: {} } },
          serverInfo: { name: "remote", version: "1" }
        })
      }
      if (msg.method === "tools/list") {
        return reply({ tools: ["echo", "add"].map((name) => ({ name, inputSchema: { type: "object" } })) })
      }
      if (msg.method === "tools/call") {
        return reply({ content: [{ type: "text", text: `remote echo: ${msg.params?.arguments?.text ?? ""}` }] })
      }
      if (msg.method === "tasks/list") return reply({ tasks: [REMOTE_TASK] })
      return reply({})
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  ctx.onTestFinished(() =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  )
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, requests }
}
