/**
 * The official MCP TypeScript SDK: `Client` + `StdioClientTransport`.
 *
 * @since 0.0.0
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { ClientAdapter, ClientSession } from "../ClientAdapter.ts"

/**
 * The SDK used the way its README shows: `connect` (initialize + initialized), `callTool`, `listTools` per page,
 * `close` (ends stdin, waits for the child, SIGTERM/SIGKILL after 2 s each).
 *
 * @since 0.0.0
 */
export const adapter: ClientAdapter = {
  id: "sdk",
  label: "@modelcontextprotocol/sdk Client + StdioClientTransport",
  modules: ["@modelcontextprotocol/sdk/client/index.js", "@modelcontextprotocol/sdk/client/stdio.js"],
  start: async (server): Promise<ClientSession> => {
    const transport = new StdioClientTransport({ command: server.command, args: [...server.args], stderr: "ignore" })
    const client = new Client({ name: "bench-sdk", version: "0.0.0" })
    await client.connect(transport)
    const pid = transport.pid
    if (pid === null) throw new Error("sdk: the transport has no child process after connect")
    return {
      pid,
      call: async (payload) => {
        const result = await client.callTool({ name: "echo", arguments: { payload } })
        const block = Array.isArray(result.content) ? result.content[0] : undefined
        return block?.type === "text" && typeof block.text === "string" ? block.text : ""
      },
      listAll: async () => {
        let count = 0
        let cursor: string | undefined
        do {
          const page = await client.listTools(cursor === undefined ? undefined : { cursor })
          count += page.tools.length
          cursor = page.nextCursor
        } while (cursor !== undefined)
        return count
      },
      close: () => client.close()
    }
  }
}
