/**
 * What hosts see of the fleet: one list of tools, prompts, resources and resource templates built from every ready
 * server, with the names hosts call them by and the way back to the server that offers each. Pure: `build` takes
 * the manager's view and the time, and returns the surface and what it keeps for the next build (the grace period).
 *
 * - **Names.** `conditional` (the default) prefixes a tool or prompt with `<server>__` when the fleet has more than
 *   one enabled server, `always` always does, `never` never does. Names are resolved through the table built here,
 *   never by splitting on the separator. Two items exposed under one name: the first in server-name order wins, the
 *   others are left out and reported in `collisions`.
 * - **Resources** keep their URIs. A URI offered by two servers goes to the first in server-name order (reported).
 *   A URI no listing names is routed by the templates that match it, else, with one server only, to that server.
 * - **The grace period.** When a server stops being ready, its items stay listed for `graceMs`, marked `offline`:
 *   a call to one answers at once with the manager's explanation instead of vanishing or hanging. A removed server's
 *   items go at once.
 *
 * @internal
 */
import type { ServerHealth, ServerState } from "@mcp-fleet/manager"
import type { ProtocolFeatures, Tool } from "@mcp-fleet/transport"

/** How tool and prompt names are namespaced. */
export type PrefixPolicy = "always" | "conditional" | "never"

/** One tool as hosts see it. */
export interface ExposedTool {
  readonly name: string
  readonly server: string
  /** Its name on its server. */
  readonly upstream: string
  /** The tool as its server listed it. */
  readonly tool: Tool.DiscoveredTool
  /** Listed from the grace period: its server is not ready. */
  readonly offline: boolean
}

/** One prompt as hosts see it. */
export interface ExposedPrompt {
  readonly name: string
  readonly server: string
  readonly upstream: string
  readonly prompt: ProtocolFeatures.Prompt
  readonly offline: boolean
}

/** One resource, with its server. */
export interface ExposedResource {
  readonly server: string
  readonly resource: ProtocolFeatures.Resource
  readonly offline: boolean
}

/** One resource template, with its server. */
export interface ExposedTemplate {
  readonly server: string
  readonly template: ProtocolFeatures.ResourceTemplate
  readonly offline: boolean
}

/** The whole surface at one moment. */
export interface Surface {
  readonly tools: ReadonlyArray<ExposedTool>
  readonly prompts: ReadonlyArray<ExposedPrompt>
  readonly resources: ReadonlyArray<ExposedResource>
  readonly templates: ReadonlyArray<ExposedTemplate>
  readonly toolByName: ReadonlyMap<string, ExposedTool>
  readonly promptByName: ReadonlyMap<string, ExposedPrompt>
  readonly resourceByUri: ReadonlyMap<string, ExposedResource>
  /** Names and URIs offered twice, said in one sentence each (shown in the status). */
  readonly collisions: ReadonlyArray<string>
  /** The enabled servers, by name (the routing fallback and the prefix rule read it). */
  readonly servers: ReadonlyArray<string>
  /** One text per list, equal exactly when the list is: what `list_changed` is decided on. */
  readonly fingerprints: { readonly tools: string; readonly prompts: string; readonly resources: string }
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
  readonly prefix: PrefixPolicy
  readonly separator: string
  readonly graceMs: number
  /** Names the gateway itself offers (`fleet_status`): an upstream item under one of them is a collision. */
  readonly reservedTools: ReadonlyArray<string>
  readonly reservedUris: ReadonlyArray<string>
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

const stable = (value: unknown): string => JSON.stringify(value)

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

  const prefixed = options.prefix === "always" || (options.prefix === "conditional" && enabled.length > 1)
  const expose = (server: string, name: string) => prefixed ? `${server}${options.separator}${name}` : name
  const collisions: Array<string> = []

  const toolByName = new Map<string, ExposedTool>()
  const exposedTools: Array<ExposedTool> = []
  for (const { offline, seen, server } of offered) {
    for (const tool of seen.tools) {
      const name = expose(server, tool.name)
      const holder = toolByName.get(name)
      if (holder !== undefined || options.reservedTools.includes(name)) {
        collisions.push(
          `tool "${name}" of ${server} is hidden: ${
            holder === undefined ? "the gateway's own tool" : `${holder.server}'s`
          } has that name`
        )
        continue
      }
      const entry: ExposedTool = { name, server, upstream: tool.name, tool, offline }
      toolByName.set(name, entry)
      exposedTools.push(entry)
    }
  }

  const promptByName = new Map<string, ExposedPrompt>()
  const exposedPrompts: Array<ExposedPrompt> = []
  for (const { offline, seen, server } of offered) {
    for (const prompt of seen.prompts) {
      const name = expose(server, prompt.name)
      const holder = promptByName.get(name)
      if (holder !== undefined) {
        collisions.push(`prompt "${name}" of ${server} is hidden: ${holder.server}'s has that name`)
        continue
      }
      const entry: ExposedPrompt = { name, server, upstream: prompt.name, prompt, offline }
      promptByName.set(name, entry)
      exposedPrompts.push(entry)
    }
  }

  const resourceByUri = new Map<string, ExposedResource>()
  const exposedResources: Array<ExposedResource> = []
  const exposedTemplates: Array<ExposedTemplate> = []
  for (const { offline, seen, server } of offered) {
    for (const resource of seen.resources) {
      const holder = resourceByUri.get(resource.uri)
      if (holder !== undefined || options.reservedUris.includes(resource.uri)) {
        collisions.push(
          `resource ${resource.uri} of ${server} goes to ${holder === undefined ? "the gateway" : holder.server}`
        )
        continue
      }
      const entry: ExposedResource = { server, resource, offline }
      resourceByUri.set(resource.uri, entry)
      exposedResources.push(entry)
    }
    for (const template of seen.templates) exposedTemplates.push({ server, template, offline })
  }

  const listed = <A>(items: ReadonlyArray<A>, view: (item: A) => unknown) => stable(items.map(view))
  return {
    memory: next,
    surface: {
      tools: exposedTools,
      prompts: exposedPrompts,
      resources: exposedResources,
      templates: exposedTemplates,
      toolByName,
      promptByName,
      resourceByUri,
      collisions,
      servers: enabled,
      fingerprints: {
        tools: listed(exposedTools, (t) => [t.name, t.tool]),
        prompts: listed(exposedPrompts, (p) => [p.name, p.prompt]),
        resources: listed(exposedResources, (r) => r.resource) + listed(exposedTemplates, (t) => t.template)
      },
      nextExpiry
    }
  }
}

/** Whether `uri` matches an RFC 6570 template of simple `{var}` expressions (each matches one or more characters). */
export const matchesTemplate = (template: string, uri: string): boolean => {
  const pattern = template.split(/(\{[^}]*\})/).map((part) =>
    part.startsWith("{") && part.endsWith("}")
      ? part.startsWith("{+") || part.startsWith("{#") ? ".+" : "[^/]+"
      : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  ).join("")
  return new RegExp(`^${pattern}$`).test(uri)
}

/**
 * The server a URI goes to: the one that listed it, else the first whose template matches, else the only server of
 * the fleet; `undefined` when none.
 */
export const routeUri = (surface: Surface, uri: string): { server: string; offline: boolean } | undefined => {
  const listed = surface.resourceByUri.get(uri)
  if (listed !== undefined) return { server: listed.server, offline: listed.offline }
  const template = surface.templates.find((t) => matchesTemplate(t.template.uriTemplate, uri))
  if (template !== undefined) return { server: template.server, offline: template.offline }
  const only = surface.servers.length === 1 ? surface.servers[0] : undefined
  return only === undefined ? undefined : { server: only, offline: false }
}
