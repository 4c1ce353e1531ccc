/**
 * The whole fleet as one `effect/ai` toolkit: the tools of every **ready** server, under valid and unique
 * names, with their MCP annotations mapped, and with every failure returned to the model as a tool result
 * instead of failing the turn.
 *
 * `toolkit(manager)` is an Effect that reads the manager's ledger each time it runs. Pass it (not its
 * result) as `LanguageModel.generateText({ toolkit })`: each turn then sees the fleet as it is at that turn:
 * a tool list change, or a server going offline or coming back, shows on the next turn with no rebuild.
 *
 * Only the manager's public API is used (`tools()`, `call`).
 *
 * @example
 * ```ts
 * import { FleetToolkit } from "@mcp-fleet/ai"
 * import { McpManager } from "@mcp-fleet/manager"
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 *
 * const turn = Effect.gen(function*() {
 *   const manager = yield* McpManager.McpManager
 *   return yield* LanguageModel.generateText({
 *     prompt: "What is in my notes?",
 *     toolkit: FleetToolkit.toolkit(manager, { filter: FleetToolkit.readOnly })
 *   })
 * })
 * ```
 *
 * @since 0.1.0
 */
import type { McpManager } from "@mcp-fleet/manager"
import { Tool as McpTool } from "@mcp-fleet/transport"
import type { McpClient } from "@mcp-fleet/transport"
import { Tool, Toolkit } from "effect/ai"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as ArgumentCheck from "./ArgumentCheck.ts"
import * as ToolNames from "./ToolNames.ts"
import * as ToolOutput from "./ToolOutput.ts"

/**
 * One fleet tool as `effect/ai` sees it: the server's JSON Schema as parameters (sent to the model
 * unchanged), `ToolOutput.Output` on success, a sentence for the model on failure (`failureMode: "return"`).
 *
 * @since 0.1.0
 * @category models
 */
export type FleetTool = Tool.Tool<string, {
  readonly parameters: typeof Schema.Unknown
  readonly success: typeof ToolOutput.Output
  readonly failure: typeof Schema.String
  readonly failureMode: "return"
}>

/**
 * @since 0.1.0
 * @category models
 */
export type FleetTools = Record<string, FleetTool>

/**
 * @since 0.1.0
 * @category options
 */
export interface Options {
  /** The model-facing name of a tool (sanitised afterwards). Default `server__tool`. */
  readonly naming?: ToolNames.Naming | undefined
  /** Only the tools of these servers. */
  readonly servers?: ReadonlyArray<string> | undefined
  /** A curated list: only these tools (each by server and MCP tool name). */
  readonly only?: ReadonlyArray<{ readonly server: string; readonly tool: string }> | undefined
  /** Any other choice, such as {@link readOnly}. Applied after `servers` and `only`. */
  readonly filter?: ((tool: McpTool.ServerTool) => boolean) | undefined
  /** Each call's own deadline (the server's request timeout still applies). */
  readonly callTimeout?: Duration.Input | undefined
  /**
   * Check the arguments against the tool's `inputSchema` before calling (see `ArgumentCheck`). Default
   * `false`: only "is a JSON object" is checked, and the server validates.
   */
  readonly validateArguments?: boolean | undefined
}

/**
 * The toolkit of one turn, with what was named how and what was left out.
 *
 * @since 0.1.0
 * @category models
 */
export interface Snapshot {
  readonly toolkit: Toolkit.WithHandler<FleetTools>
  readonly tools: ReadonlyArray<ToolNames.Named>
  /** Tools left out because an earlier one has their name. */
  readonly collisions: ReadonlyArray<ToolNames.Collision>
  /** With `validateArguments`: tools whose schema could not be compiled (offered anyway, checked by the server). */
  readonly unvalidated: ReadonlyArray<Unvalidated>
}

/**
 * A tool whose arguments are not checked locally, and why.
 *
 * @since 0.1.0
 * @category models
 */
export interface Unvalidated {
  readonly name: string
  readonly server: string
  readonly tool: string
  readonly reason: string
}

/**
 * A filter: tools whose server says `readOnlyHint: true`. An absent hint is not read-only (fail-safe).
 *
 * @since 0.1.0
 * @category filters
 */
export const readOnly = (tool: McpTool.ServerTool): boolean => !McpTool.mayWrite(tool.tool)

/** The MCP hints that are present, as `effect/ai` annotations; an absent hint stays absent. */
const annotate = (tool: FleetTool, discovered: McpTool.DiscoveredTool): FleetTool => {
  const hints = discovered.annotations
  const title = discovered.title ?? hints?.title
  let annotated = tool.annotate(Tool.Strict, false)
  if (title !== undefined) annotated = annotated.annotate(Tool.Title, title)
  if (hints?.readOnlyHint !== undefined) annotated = annotated.annotate(Tool.Readonly, hints.readOnlyHint)
  if (hints?.destructiveHint !== undefined) annotated = annotated.annotate(Tool.Destructive, hints.destructiveHint)
  if (hints?.idempotentHint !== undefined) annotated = annotated.annotate(Tool.Idempotent, hints.idempotentHint)
  if (hints?.openWorldHint !== undefined) annotated = annotated.annotate(Tool.OpenWorld, hints.openWorldHint)
  return annotated
}

const selected = (options: Options) => (tool: McpTool.ServerTool): boolean =>
  (options.servers === undefined || options.servers.includes(tool.server)) &&
  (options.only === undefined || options.only.some((o) => o.server === tool.server && o.tool === tool.tool.name)) &&
  (options.filter === undefined || options.filter(tool))

const handler = (
  manager: McpManager.Service,
  named: ToolNames.Named,
  options: Options,
  check: ArgumentCheck.Check | undefined
) => {
  const callOptions: McpClient.CallOptions | undefined = options.callTimeout === undefined
    ? undefined
    : { timeout: options.callTimeout }
  return (params: unknown): Effect.Effect<ToolOutput.Output, string> => {
    if (!Predicate.isObject(params)) return Effect.fail(`The arguments of ${named.name} must be a JSON object.`)
    const problem = check?.(params)
    if (problem !== undefined) {
      return Effect.fail(`The arguments of ${named.name} do not match its input schema: ${problem}.`)
    }
    return manager.call(named.server, named.tool.name, params, callOptions).pipe(
      Effect.mapError((error) => error.message),
      Effect.flatMap((result) =>
        result.isError === true
          ? Effect.fail(ToolOutput.errorText(result))
          : Effect.succeed(ToolOutput.fromResult(result))
      )
    )
  }
}

/**
 * The toolkit of the fleet as it is now, with the naming report.
 *
 * @since 0.1.0
 * @category constructors
 */
export const snapshot = (manager: McpManager.Service, options: Options = {}): Effect.Effect<Snapshot> =>
  Effect.gen(function*() {
    const { collisions, named } = ToolNames.assign(manager.tools().filter(selected(options)), options.naming)
    const tools: Array<FleetTool> = []
    const handlers: Record<string, (params: unknown) => Effect.Effect<ToolOutput.Output, string>> = {}
    const unvalidated: Array<Unvalidated> = []
    for (const entry of named) {
      const check = options.validateArguments === true
        ? yield* ArgumentCheck.compile(entry.tool.inputSchema).pipe(
          Effect.tapError((reason) =>
            Effect.sync(() =>
              unvalidated.push({ name: entry.name, server: entry.server, tool: entry.tool.name, reason })
            )
          ),
          Effect.option,
          Effect.map(Option.getOrUndefined)
        )
        : undefined
      const dynamic: FleetTool = Tool.dynamic(entry.name, {
        description: entry.tool.description,
        parameters: entry.tool.inputSchema,
        success: ToolOutput.Output,
        failure: Schema.String,
        failureMode: "return",
        toModelOutput: ToolOutput.toModelOutput
      })
      tools.push(annotate(dynamic, entry.tool))
      handlers[entry.name] = handler(manager, entry, options, check)
    }
    const kit = Toolkit.make(...tools)
    const toolkit = yield* kit.pipe(Effect.provideContext(yield* kit.toHandlers(handlers)))
    return { toolkit, tools: named, collisions, unvalidated }
  })

/**
 * The toolkit of the fleet as it is when this Effect runs; collisions are logged as warnings. Pass the
 * Effect itself as `generateText`'s `toolkit` so that every turn reads the fleet afresh.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolkit = (
  manager: McpManager.Service,
  options: Options = {}
): Effect.Effect<Toolkit.WithHandler<FleetTools>> =>
  Effect.tap(snapshot(manager, options), ({ collisions }) =>
    Effect.forEach(collisions, (c) =>
      Effect.logWarning(
        `The tool ${c.tool} of ${c.server} is left out of the toolkit: its name ${c.name} is already taken by ${c.keptBy.tool} of ${c.keptBy.server}.`
      ), { discard: true })).pipe(Effect.map(({ toolkit }) => toolkit))
