/**
 * `@mcp-fleet/cli`: the `mcp-fleet` command line, as library modules (the entry point is `bin/mcp-fleet.ts`).
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as CallCommand from "./commands/CallCommand.ts"
/** @since 0.1.0 */
export * as CallOutput from "./CallOutput.ts"
/** @since 0.1.0 */
export * as CliEnvironment from "./CliEnvironment.ts"
/** @since 0.1.0 */
export * as CliError from "./CliError.ts"
/** @since 0.1.0 */
export * as CliFlags from "./CliFlags.ts"
/** @since 0.1.0 */
export * as CliLogger from "./CliLogger.ts"
/** @since 0.1.0 */
export * as CliPresenter from "./CliPresenter.ts"
/** @since 0.1.0 */
export * as DemoCommand from "./commands/DemoCommand.ts"
/** @since 0.1.0 */
export * as DemoFleet from "./DemoFleet.ts"
/** @since 0.1.0 */
export * as DurationText from "./DurationText.ts"
/** @since 0.2.0 */
export * as ElicitationPrompt from "./ElicitationPrompt.ts"
/** @since 0.5.0 */
export * as SamplingPrompt from "./SamplingPrompt.ts"
/** @since 0.1.0 */
export * as ExitCode from "./ExitCode.ts"
/** @since 0.1.0 */
export * as FleetConfig from "./FleetConfig.ts"
/** @since 0.1.0 */
export * as Main from "./Main.ts"
/** @since 0.1.0 */
export * as Settle from "./Settle.ts"
/** @since 0.1.0 */
export * as StatusCommand from "./commands/StatusCommand.ts"
/** @since 0.1.0 */
export * as ToolListing from "./ToolListing.ts"
/** @since 0.1.0 */
export * as ToolsCommand from "./commands/ToolsCommand.ts"
/** @since 0.1.0 */
export * as Watch from "./Watch.ts"
/** @since 0.1.0 */
export * as Advice from "./Advice.ts"
/** @since 0.1.0 */
export * as Diagnostics from "./Diagnostics.ts"
/** @since 0.1.0 */
export * as OneShot from "./OneShot.ts"
/** @since 0.1.0 */
export * as StatusJson from "./StatusJson.ts"
/** @since 0.1.0 */
export * as Vocabulary from "./Vocabulary.ts"
/** @since 0.4.0 */
export * as Shutdown from "./Shutdown.ts"
/** @since 0.4.0 */
export * as AuthProbe from "./AuthProbe.ts"
