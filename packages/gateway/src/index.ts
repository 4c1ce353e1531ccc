/**
 * `@mcp-fleet/gateway`: the fleet of `@mcp-fleet/manager` served as one MCP server (issue 29), over stdio or
 * Streamable HTTP, to hosts of either protocol era.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as CallWindow from "./CallWindow.ts"
/** @since 0.1.0 */
export * as ChangeBus from "./ChangeBus.ts"
/** @since 0.1.0 */
export * as GatewayError from "./GatewayError.ts"
/** @since 0.1.0 */
export * as GatewayMetrics from "./GatewayMetrics.ts"
/** @since 0.1.0 */
export * as HostLimits from "./HostLimits.ts"
/** @since 0.1.0 */
export * as ListChanges from "./ListChanges.ts"
/** @since 0.1.0 */
export * as NameTable from "./NameTable.ts"
/** @since 0.1.0 */
export * as Profiles from "./Profiles.ts"
/** @since 0.1.0 */
export * as ResourceRoutes from "./ResourceRoutes.ts"
/** @since 0.1.0 */
export * as ResultStore from "./ResultStore.ts"
/** @since 0.1.0 */
export * as SearchMode from "./SearchMode.ts"
/** @since 0.1.0 */
export * as SessionKeys from "./SessionKeys.ts"
/** @since 0.1.0 */
export * as SessionSeal from "./SessionSeal.ts"
/** @since 0.1.0 */
export * as SharedState from "./SharedState.ts"
/** @since 0.1.0 */
export * as ToolFilter from "./ToolFilter.ts"
/** @since 0.1.0 */
export * as ToolSearch from "./ToolSearch.ts"
/** @since 0.1.0 */
export * as McpGateway from "./McpGateway.ts"
/** @since 0.1.0 */
export * as GatewayOptions from "./GatewayOptions.ts"
