/**
 * `@mcp-fleet/gateway`: the fleet of `@mcp-fleet/manager` served as one MCP server (issue 29), over stdio or
 * Streamable HTTP, to hosts of either protocol era.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as McpGateway from "./McpGateway.ts"
/** @since 0.1.0 */
export * as GatewayOptions from "./GatewayOptions.ts"
