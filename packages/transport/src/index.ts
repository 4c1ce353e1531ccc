/**
 * `@mcp-fleet/transport`: one MCP client (`McpClient`) over a child process's stdin/stdout or over HTTP, as a
 * scoped Effect resource; its options, its errors, its feature modules, and the wire layer under it.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as BaseEnvironment from "./BaseEnvironment.ts"
/** @since 0.1.0 */
export * as McpClient from "./McpClient.ts"
/** @since 0.1.0 */
export * as McpClientOptions from "./McpClientOptions.ts"
/** @since 0.1.0 */
export * as McpError from "./McpError.ts"
/** @since 0.4.0 */
export * as ErrorKind from "./ErrorKind.ts"
/** @since 0.1.0 */
export * as Protocol from "./Protocol.ts"
/** @since 0.2.0 */
export * as HttpError from "./HttpError.ts"
/** @since 0.2.0 */
export * as Transport from "./wire/Transport.ts"
/** @since 0.1.0 */
export * as Tool from "./Tool.ts"
/** @since 0.3.0 */
export * as Subscriptions from "./Subscriptions.ts"
/** @since 0.3.0 */
export * as EraError from "./EraError.ts"
/** @since 0.2.0 */
export * as ClientHandlers from "./ClientHandlers.ts"
/** @since 0.2.0 */
export * as Elicitation from "./Elicitation.ts"
/** @since 0.2.0 */
export * as Roots from "./Roots.ts"
/** @since 0.2.0 */
export * as Sampling from "./Sampling.ts"
/** @since 0.5.0 */
export * as Skills from "./Skills.ts"
/** @since 0.3.0 */
export * as TypedCall from "./TypedCall.ts"
/** @since 0.3.0 */
export * as Telemetry from "./Telemetry.ts"
/** @since 0.3.0 */
export * as ProtocolFeatures from "./ProtocolFeatures.ts"
/** @since 0.3.0 */
export * as Features from "./session/Features.ts"
/** @since 0.3.0 */
export * as Resources from "./session/Resources.ts"
/** @since 0.5.0 */
export * as SkillMethods from "./session/SkillMethods.ts"
/** @since 0.3.0 */
export * as Progress from "./session/Progress.ts"
/** @since 0.3.0 */
export * as Logging from "./session/Logging.ts"
/** @since 0.3.0 */
export * as Capabilities from "./session/Capabilities.ts"
/** @since 0.4.0 */
export * as ProcessTree from "./ProcessTree.ts"
/** @since 0.4.0 */
export * as StderrLine from "./StderrLine.ts"
/** @since 0.4.0 */
export * as Wire from "./Wire.ts"
/** @since 0.5.0 */
export * as Tasks from "./Tasks.ts"
/** @since 0.5.0 */
export * as TaskError from "./TaskError.ts"
