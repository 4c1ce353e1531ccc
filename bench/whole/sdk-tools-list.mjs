// The official SDK doing what `mcp-fleet tools --server fast --json` does: start one stdio server, initialize,
// list its tools (every page), print them as JSON, close. The whole-process CLI cell runs it as its SDK column.
//   node sdk-tools-list.mjs <command> [args…]
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"

const [command, ...args] = process.argv.slice(2)
const client = new Client({ name: "sdk-tools-list", version: "1.0.0" })
await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }))
const tools = []
let cursor
do {
  const page = await client.listTools(cursor === undefined ? {} : { cursor })
  tools.push(...page.tools)
  cursor = page.nextCursor
} while (cursor !== undefined)
process.stdout.write(JSON.stringify(tools, null, 2) + "\n")
await client.close()
