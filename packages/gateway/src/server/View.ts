/**
 * The fleet as one host sees it: the surface under the host's profile (`Profiles`: which servers, allow/deny globs,
 * read-only), named for the host's name-length limit (`NameTable`, `HostLimits`), in plain or search mode
 * (`SearchMode`: past the profile's threshold the host sees `search_tools` and `call_tool` and the pinned tools).
 * Pure; the engine keeps one per (profile, length limit) until the surface changes.
 *
 * @internal
 */
import type { ProtocolFeatures, Tool } from "@mcp-fleet/transport"
import * as NameTable from "../NameTable.ts"
import * as Profiles from "../Profiles.ts"
import * as SearchMode from "../SearchMode.ts"
import * as ToolSearch from "../ToolSearch.ts"
import type { Surface } from "./Surface.ts"

/** A tool the host may call, under its exposed name. */
export interface ViewTool {
  readonly exposed: string
  readonly server: string
  readonly tool: Tool.DiscoveredTool
  readonly offline: boolean
}

/** A prompt the host may get, under its exposed name. */
export interface ViewPrompt {
  readonly exposed: string
  readonly server: string
  readonly prompt: ProtocolFeatures.Prompt
  readonly offline: boolean
}

/** One host's view. */
export interface View {
  /** What `tools/list` answers, the gateway's own tools included. */
  readonly listed: ReadonlyArray<Record<string, unknown>>
  /** A tool the profile keeps, by exposed name (in search mode too: `call_tool` reaches every kept tool). */
  readonly tool: (exposed: string) => ViewTool | undefined
  /** Search mode's index, or `undefined` in plain mode. */
  readonly search: ToolSearch.Index | undefined
  readonly prompts: ReadonlyArray<ViewPrompt>
  readonly prompt: (exposed: string) => ViewPrompt | undefined
  /** Whether the profile shows this server's resources and prompts. */
  readonly includes: (server: string) => boolean
  /** What the status says about this view: tools dropped by the profile, names not exposed, the surface chosen. */
  readonly notes: ReadonlyArray<string>
}

/** The options of a view. */
export interface Options {
  readonly policy: NameTable.Policy
  readonly maxLength: number
  /** The gateway's own tools, listed at the end, never taken by an upstream tool. */
  readonly own: ReadonlyArray<Tool.DiscoveredTool>
}

const key = (server: string, name: string) => `${server}\u0000${name}`

/** Builds one host's view of `surface`. */
export const make = (surface: Surface, profile: Profiles.Resolved, options: Options): View => {
  const reserved = [...options.own.map((t) => t.name), ToolSearch.SEARCH_TOOLS, ToolSearch.CALL_TOOL]
  const offline = (server: string) => surface.offline.has(server)

  const selection = Profiles.apply(profile, surface.tools.map((t) => ({ server: t.server, tool: t.item })))
  const tools = NameTable.make(selection.kept.map((t) => ({ server: t.server, name: t.tool.name })), {
    policy: options.policy,
    maxLength: options.maxLength,
    reserved
  })
  const byEntry = new Map(selection.kept.map((t) => [key(t.server, t.tool.name), t.tool]))
  const viewTools: Array<ViewTool> = tools.named.flatMap((named) => {
    const tool = byEntry.get(key(named.server, named.name))
    return tool === undefined
      ? []
      : [{ exposed: named.exposed, server: named.server, tool, offline: offline(named.server) }]
  })
  const toolByName = new Map(viewTools.map((t) => [t.exposed, t]))

  const surfaceMode = SearchMode.decide(profile.mode, viewTools.length, profile.searchThreshold)
  const pinned = new Set(selection.pinned.map((t) => key(t.server, t.tool.name)))
  const shown = surfaceMode.search ? viewTools.filter((t) => pinned.has(key(t.server, t.tool.name))) : viewTools
  const listed = [
    ...(surfaceMode.search ? [ToolSearch.searchToolsDefinition, ToolSearch.callToolDefinition] : []),
    ...shown.map((t) => ({ ...t.tool, name: t.exposed })),
    ...options.own
  ]

  const shownPrompts = surface.prompts.filter((p) => profile.includes(p.server))
  const prompts = NameTable.make(shownPrompts.map((p) => ({ server: p.server, name: p.item.name })), {
    policy: options.policy,
    maxLength: options.maxLength
  })
  const promptByEntry = new Map(shownPrompts.map((p) => [key(p.server, p.item.name), p.item]))
  const viewPrompts: Array<ViewPrompt> = prompts.named.flatMap((named) => {
    const prompt = promptByEntry.get(key(named.server, named.name))
    return prompt === undefined
      ? []
      : [{ exposed: named.exposed, server: named.server, prompt, offline: offline(named.server) }]
  })
  const promptByName = new Map(viewPrompts.map((p) => [p.exposed, p]))

  const notes = [
    ...(selection.dropped.length > 0
      ? [`${selection.dropped.length} tool(s) left out by the profile ${profile.name ?? "(default)"}`]
      : []),
    ...[...tools.conflicts, ...prompts.conflicts].map((conflict) =>
      conflict._tag === "SharedName"
        ? `"${conflict.name}" of ${conflict.server} is not exposed: ${conflict.keptBy} keeps that name`
        : `${conflict.server} lists "${conflict.name}" twice: the first is exposed`
    ),
    ...(surfaceMode.search ? [`search mode: ${surfaceMode.reason}`] : [])
  ]

  return {
    listed,
    tool: (exposed) => toolByName.get(exposed),
    search: surfaceMode.search
      ? ToolSearch.make(viewTools.map((t) => ({ name: t.exposed, server: t.server, tool: t.tool })))
      : undefined,
    prompts: viewPrompts,
    prompt: (exposed) => promptByName.get(exposed),
    includes: profile.includes,
    notes
  }
}
