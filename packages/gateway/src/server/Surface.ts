/**
 * What the fleet offers hosts at one moment: every ready server's tools, prompts, resources and resource templates,
 * each with its server. Pure: `build` takes the manager's view and the time, and returns the surface and what it keeps
 * for the next build (the grace period). Names are given per host by `View` (`NameTable`, profiles, search mode);
 * URIs are routed by `ResourceRoutes`.
 *
 * **The grace period.** When a server stops being ready, its items stay listed for `graceMs`, marked `offline`: a call
 * to one answers at once with the manager's explanation instead of vanishing or hanging. A removed server's items go
 * at once.
 *
 * @internal
 */
import type { ServerHealth, ServerState } from "@mcp-fleet/manager"
import type { ProtocolFeatures, Tool } from "@mcp-fleet/transport"

/** One item of a server, and whether it is listed from the grace period (its server is not ready). */
export interface Offered<A> {
  readonly server: string
  readonly offline: boolean
  readonly item: A
}

/** The whole surface at one moment. */
export interface Surface {
  readonly tools: ReadonlyArray<Offered<Tool.DiscoveredTool>>
  readonly prompts: ReadonlyArray<Offered<ProtocolFeatures.Prompt>>
  readonly resources: ReadonlyArray<Offered<ProtocolFeatures.Resource>>
  readonly templates: ReadonlyArray<Offered<ProtocolFeatures.ResourceTemplate>>
  /** The servers listed from the grace period. */
  readonly offline: ReadonlySet<string>
  /** The enabled servers, by name. */
  readonly servers: ReadonlyArray<string>
  /** When the next grace period ends (Clock milliseconds), if one is running: the surface changes then. */
  readonly nextExpiry: number | undefined
}

/** What one ready server offered when last seen, and since when it is not ready (`undefined` while it is). */
interface Seen {
  readonly tools: ReadonlyArray<Tool.DiscoveredTool>
  readonly prompts: ReadonlyArray<ProtocolFeatures.Prompt>
  readonly resources: ReadonlyArray<ProtocolFeatures.Resource>
  readonly templates: ReadonlyArray<ProtocolFeatures.ResourceTemplate>
  readonly leftAt: number | undefined
}

/** What a build keeps for the next one. */
export type Memory = ReadonlyMap<string, Seen>

/** The empty memory. */
export const emptyMemory: Memory = new Map()

/** The manager's view, as `build` reads it. */
export interface Input {
  readonly healths: ReadonlyArray<ServerHealth.ServerHealth>
  readonly tools: ReadonlyArray<Tool.ServerTool>
  readonly prompts: ReadonlyArray<{ readonly server: string; readonly prompt: ProtocolFeatures.Prompt }>
  readonly resources: ReadonlyArray<{ readonly server: string; readonly resource: ProtocolFeatures.Resource }>
  readonly templates: ReadonlyArray<{ readonly server: string; readonly template: ProtocolFeatures.ResourceTemplate }>
  readonly now: number
}

/** The options of a build. */
export interface Options {
  readonly graceMs: number
}

const byServer = <A extends { readonly server: string }>(items: ReadonlyArray<A>) => {
  const map = new Map<string, Array<A>>()
  for (const item of items) {
    const list = map.get(item.server)
    if (list === undefined) map.set(item.server, [item])
    else list.push(item)
  }
  return map
}

/** Builds the surface at `input.now`, and the memory for the next build. */
export const build = (input: Input, memory: Memory, options: Options): { surface: Surface; memory: Memory } => {
  const enabled = input.healths.filter((h) => h.state !== "disabled").map((h) => h.name).sort()
  const state = new Map<string, ServerState.ServerState>(input.healths.map((h) => [h.name, h.state]))
  const tools = byServer(input.tools)
  const prompts = byServer(input.prompts)
  const resources = byServer(input.resources)
  const templates = byServer(input.templates)

  const next = new Map<string, Seen>()
  let nextExpiry: number | undefined
  /** Each enabled server's items now: its live ones when ready, its remembered ones in the grace period. */
  const offered = enabled.flatMap((server) => {
    if (state.get(server) === "ready") {
      const seen: Seen = {
        tools: (tools.get(server) ?? []).map((t) => t.tool),
        prompts: (prompts.get(server) ?? []).map((p) => p.prompt),
        resources: (resources.get(server) ?? []).map((r) => r.resource),
        templates: (templates.get(server) ?? []).map((t) => t.template),
        leftAt: undefined
      }
      next.set(server, seen)
      return [{ server, seen, offline: false }]
    }
    const before = memory.get(server)
    if (before === undefined) return []
    const leftAt = before.leftAt ?? input.now
    const expires = leftAt + options.graceMs
    if (expires <= input.now) return []
    const seen = { ...before, leftAt }
    next.set(server, seen)
    nextExpiry = nextExpiry === undefined ? expires : Math.min(nextExpiry, expires)
    return [{ server, seen, offline: true }]
  })

  return {
    memory: next,
    surface: {
      tools: offered.flatMap(({ offline, seen, server }) => seen.tools.map((item) => ({ server, item, offline }))),
      prompts: offered.flatMap(({ offline, seen, server }) => seen.prompts.map((item) => ({ server, item, offline }))),
      resources: offered.flatMap(({ offline, seen, server }) =>
        seen.resources.map((item) => ({ server, item, offline }))
      ),
      templates: offered.flatMap(({ offline, seen, server }) =>
        seen.templates.map((item) => ({ server, item, offline }))
      ),
      offline: new Set(offered.filter((o) => o.offline).map((o) => o.server)),
      servers: enabled,
      nextExpiry
    }
  }
}
