/**
 * `@mcp-fleet/platform-node`: Node services for mcp-fleet programs.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as NodeStdioSpawner from "./NodeStdioSpawner.ts"
