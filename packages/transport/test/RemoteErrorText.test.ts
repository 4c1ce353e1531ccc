/**
 * Issue 26, item 11: a server's own `MCP error N: ` prefix (the TypeScript SDK's servers put it in front of every
 * error text) is not repeated after the code the message already gives.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpError } from "@mcp-fleet/transport"

const message = (code: number, remoteMessage: string) =>
  new McpError.RemoteError({ server: "docs", method: "resources/read", code, remoteMessage }).message

describe("RemoteError.message", () => {
  it("drops the server's own 'MCP error <code>:' prefix when it repeats the code", () => {
    assert.strictEqual(
      message(-32602, "MCP error -32602: Resource docs://x not found"),
      "MCP server \"docs\" answered resources/read with error -32602: Resource docs://x not found"
    )
  })

  it("keeps a prefix that names another code, a prefix alone, and any other text", () => {
    assert.include(message(-32603, "MCP error -32602: bad"), "with error -32603: MCP error -32602: bad")
    assert.include(message(-32602, "MCP error -32602: "), "with error -32602: MCP error -32602: ")
    assert.include(message(-32602, "Resource docs://x not found"), "with error -32602: Resource docs://x not found")
  })
})
