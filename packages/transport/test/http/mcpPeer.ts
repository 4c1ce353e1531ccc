/**
 * The test kit's small Streamable HTTP MCP server (see `@mcp-fleet/testing` `HttpPeer.mcpPeer`).
 */
import { HttpPeer } from "@mcp-fleet/testing"

export type McpPeerOptions = HttpPeer.McpPeerOptions
export type McpPeerState = HttpPeer.McpPeerState
export const mcpPeer = HttpPeer.mcpPeer
export const answer = HttpPeer.answer
