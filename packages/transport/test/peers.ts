/**
 * Scripted in-memory MCP servers for the transport's unit tests: the test kit's `McpPeer` under the names
 * these tests use.
 */
import { McpPeer } from "@mcp-fleet/testing"

export type Message = McpPeer.Message
export type PeerScript = McpPeer.Script
export const mcpPeer: typeof McpPeer.serve = McpPeer.serve
export const peerLayer: typeof McpPeer.layer = McpPeer.layer
export const controlledPeer: typeof McpPeer.controlled = McpPeer.controlled
export const echoResult = McpPeer.echoResult
export const awaitFrames = McpPeer.awaitFrames
export const awaitMethod = McpPeer.awaitMethod
export const closeWhileClockPasses = McpPeer.closeWhileClockPasses
