/**
 * `@mcp-fleet/interop`: tests of mcp-fleet against the MCP reference servers from npm, and a helper that
 * starts those servers.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as ReferenceServers from "./ReferenceServers.ts"

/**
 * @since 0.1.0
 */
export * as HttpPeers from "./HttpPeers.ts"

/**
 * @since 0.1.0
 */
export * as V2Stdio from "./V2Stdio.ts"
