/**
 * The test kit's HTTP peer under the names these tests use (see `@mcp-fleet/testing` `HttpPeer`).
 */
import { HttpPeer } from "@mcp-fleet/testing"

export type Recorded = HttpPeer.Recorded
export type Handler = HttpPeer.Handler
export type Peer = HttpPeer.Peer
export const serve = HttpPeer.serve
export const json = HttpPeer.json
export const event = HttpPeer.event
export const openSse = HttpPeer.openSse
export const result = HttpPeer.result
export const initializeResult = HttpPeer.initializeResult
export const toolsResult = HttpPeer.toolsResult
export const callResult = HttpPeer.callResult
export const paramsOf = HttpPeer.paramsOf
