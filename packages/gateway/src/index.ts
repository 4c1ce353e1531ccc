/**
 * `@mcp-fleet/gateway`: the fleet of `@mcp-fleet/manager` served as one MCP server (issue 29). Its modules are
 * exported here as they land.
 *
 * @since 0.1.0
 */
export {}
