/**
 * `@mcp-fleet/manager`: many MCP servers behind one Effect Layer.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as ManagerError from "./ManagerError.ts"
/** @since 0.1.0 */
export * as ManagerOptions from "./ManagerOptions.ts"
/** @since 0.1.0 */
export * as McpManager from "./McpManager.ts"
/** @since 0.1.0 */
export * as ServerHealth from "./ServerHealth.ts"
/** @since 0.1.0 */
export * as ServerState from "./ServerState.ts"
/** @since 0.1.0 */
export * as StatusText from "./StatusText.ts"
/** @since 0.2.0 */
export * as ServerTransition from "./ServerTransition.ts"
/** @since 0.3.0 */
export * as FleetMetrics from "./FleetMetrics.ts"
