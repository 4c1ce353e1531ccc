/**
 * `@mcp-fleet/ai`: the fleet of `@mcp-fleet/manager` as one `effect/ai` toolkit.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as FleetToolkit from "./FleetToolkit.ts"
/** @since 0.1.0 */
export * as ToolNames from "./ToolNames.ts"
/** @since 0.1.0 */
export * as ToolOutput from "./ToolOutput.ts"
/** @since 0.1.0 */
export * as ArgumentCheck from "./ArgumentCheck.ts"
/** @since 0.1.0 */
export * as SamplingModel from "./SamplingModel.ts"
