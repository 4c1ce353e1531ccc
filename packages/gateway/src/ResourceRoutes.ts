/**
 * The routing table of the fleet's resources: which server answers `resources/read` for a URI the host sends,
 * and which URI the host sees for each server's resources and resource templates.
 *
 * **Contract** (what {@link make} guarantees):
 * - A URI one server offers is shown as it is. A URI several servers offer is kept by one of them (the first
 *   in `priority`, then in code-unit order of server names); each other server's copy is shown as
 *   {@link namespaced}: `fleet://server/<server, percent-encoded>/<upstream URI>`. Every such case is listed in
 *   `collisions`, for the status. Resource templates follow the same rule on their `uriTemplate` text.
 * - Upstream URIs in the gateway's own `fleet:` scheme are always namespaced, so they never shadow
 *   `fleet://status` or `fleet://results/<id>`.
 * - `route(uri)` of any URI the table shows gives back `(server, upstream URI)`. It also routes a URI that is
 *   not listed: a namespaced URI to its server; a URI matching a plain template to that template's server (the
 *   template with the most literal characters, then the collision order); otherwise to `fallback` when set
 *   (a one-server gateway), or `undefined` (the gateway answers "resource not found").
 * - `exposeFor(server, uri)` is the URI to show for a URI `server` put in a result (a `resource_link`, an
 *   embedded resource): the URI itself when it routes back to that server, else its namespaced form. So every
 *   link a server returns can be read through the gateway.
 * - The table depends on the set of inputs and the options only, not on their order.
 *
 * Template matching is for routing only: each `{…}` expression of RFC 6570 matches any run of characters.
 *
 * @since 0.1.0
 */
import type { ServerFeatures } from "@mcp-fleet/manager"
import type { ProtocolFeatures } from "@mcp-fleet/transport"

/**
 * The start of every namespaced URI.
 *
 * @since 0.1.0
 * @category constants
 */
export const NAMESPACE_PREFIX = "fleet://server/"

/**
 * Where a URI goes: the server and the URI that server knows.
 *
 * @since 0.1.0
 * @category models
 */
export interface Route {
  readonly server: string
  readonly uri: string
}

/**
 * A resource as the host sees it (`resource.uri` is the exposed URI), with its server and upstream URI.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExposedResource {
  readonly server: string
  readonly upstreamUri: string
  readonly resource: ProtocolFeatures.Resource
}

/**
 * A resource template as the host sees it (`template.uriTemplate` is the exposed one), with its server and
 * upstream template.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExposedTemplate {
  readonly server: string
  readonly upstreamTemplate: string
  readonly template: ProtocolFeatures.ResourceTemplate
}

/**
 * A URI (or template) several servers offer: who keeps it, and what the others' copies are shown as.
 *
 * @since 0.1.0
 * @category models
 */
export interface Collision {
  readonly kind: "resource" | "template"
  readonly uri: string
  readonly keptBy: string
  readonly namespaced: ReadonlyArray<{ readonly server: string; readonly exposed: string }>
}

/**
 * The options of {@link make}.
 *
 * @since 0.1.0
 * @category options
 */
export interface Options {
  /** Servers that keep a shared URI first, in this order; the others follow in code-unit order of names. */
  readonly priority?: ReadonlyArray<string> | undefined
  /** The server that takes URIs no resource or template claims (set it for a one-server gateway). */
  readonly fallback?: string | undefined
}

/**
 * The routing table.
 *
 * @since 0.1.0
 * @category models
 */
export interface RouteTable {
  /** Sorted by exposed URI. */
  readonly resources: ReadonlyArray<ExposedResource>
  /** Sorted by exposed template. */
  readonly templates: ReadonlyArray<ExposedTemplate>
  /** Sorted by URI, resources first. */
  readonly collisions: ReadonlyArray<Collision>
  readonly route: (uri: string) => Route | undefined
  readonly exposeFor: (server: string, uri: string) => string
}

/**
 * The namespaced form of `uri` from `server`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const namespaced = (server: string, uri: string): string =>
  `${NAMESPACE_PREFIX}${encodeURIComponent(server)}/${uri}`

/**
 * The route a namespaced URI names, or `undefined` for any other URI (or a malformed one).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseNamespaced = (uri: string): Route | undefined => {
  if (!uri.startsWith(NAMESPACE_PREFIX)) return undefined
  const rest = uri.slice(NAMESPACE_PREFIX.length)
  const slash = rest.indexOf("/")
  if (slash <= 0) return undefined
  const encoded = rest.slice(0, slash)
  // encodeURIComponent never yields these; a server part holding them was not made here.
  if (!/^[A-Za-z0-9\-_.!~*'()%]+$/.test(encoded)) return undefined
  let server: string
  try {
    server = decodeURIComponent(encoded)
  } catch {
    return undefined
  }
  return { server, uri: rest.slice(slash + 1) }
}

/**
 * A line for the status: what collided and where the other copies went.
 *
 * @since 0.1.0
 * @category rendering
 */
export const describe = (collision: Collision): string =>
  `${collision.kind} "${collision.uri}" is offered by ${
    [collision.keptBy, ...collision.namespaced.map((n) => n.server)].join(", ")
  }: ${collision.keptBy} keeps it; ${collision.namespaced.map((n) => `${n.server}'s is ${n.exposed}`).join(", ")}.`

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
const ownScheme = (uri: string): boolean => /^fleet:/i.test(uri)

const templatePattern = (template: string): { readonly regex: RegExp; readonly literal: number } => {
  const parts = template.split(/\{[^}]*\}/)
  const escaped = parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
  return { regex: new RegExp(`^${escaped.join(".*?")}$`, "s"), literal: parts.join("").length }
}

interface Owned<A> {
  readonly server: string
  readonly key: string
  readonly item: A
}

/** Groups items by key; in each group the owner order decides who keeps the key. */
const assign = <A>(
  items: ReadonlyArray<Owned<A>>,
  order: (a: string, b: string) => number,
  kind: Collision["kind"],
  collisions: Array<Collision>
): Array<Owned<A> & { readonly exposed: string }> => {
  const groups = new Map<string, Array<Owned<A>>>()
  for (const item of items) {
    const group = groups.get(item.key)
    if (group === undefined) groups.set(item.key, [item])
    else if (!group.some((g) => g.server === item.server)) group.push(item)
  }
  const out: Array<Owned<A> & { readonly exposed: string }> = []
  for (const [key, group] of groups) {
    group.sort((a, b) => order(a.server, b.server))
    const keeps = ownScheme(key) ? undefined : group[0]
    for (const item of group) {
      out.push({ ...item, exposed: item === keeps ? key : namespaced(item.server, key) })
    }
    if (keeps !== undefined && group.length > 1) {
      collisions.push({
        kind,
        uri: key,
        keptBy: keeps.server,
        namespaced: group.slice(1).map((item) => ({ server: item.server, exposed: namespaced(item.server, key) }))
      })
    }
  }
  return out
}

/**
 * Builds the routing table of the resources and templates the manager lists (`McpManager.resources()`,
 * `resourceTemplates()`). Total: any input gives a table (see the module's contract).
 *
 * @example
 * ```ts
 * import { ResourceRoutes } from "@mcp-fleet/gateway"
 *
 * const table = ResourceRoutes.make([
 *   { server: "a", resource: { uri: "file:///notes.md", name: "notes" } },
 *   { server: "b", resource: { uri: "file:///notes.md", name: "notes" } }
 * ], [])
 * table.route("file:///notes.md") // { server: "a", uri: "file:///notes.md" }
 * table.route("fleet://server/b/file:///notes.md") // { server: "b", uri: "file:///notes.md" }
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  resources: ReadonlyArray<ServerFeatures.ServerResource>,
  templates: ReadonlyArray<ServerFeatures.ServerResourceTemplate>,
  options: Options = {}
): RouteTable => {
  const priority = options.priority ?? []
  const rankOf = (server: string) => {
    const at = priority.indexOf(server)
    return at === -1 ? priority.length : at
  }
  const order = (a: string, b: string) => rankOf(a) - rankOf(b) || compare(a, b)
  const collisions: Array<Collision> = []

  const exposedResources = assign(
    resources.map((r) => ({ server: r.server, key: r.resource.uri, item: r.resource })),
    order,
    "resource",
    collisions
  ).map((r): ExposedResource => ({
    server: r.server,
    upstreamUri: r.key,
    resource: { ...r.item, uri: r.exposed }
  })).sort((a, b) => compare(a.resource.uri, b.resource.uri))

  const exposedTemplates = assign(
    templates.map((t) => ({ server: t.server, key: t.template.uriTemplate, item: t.template })),
    order,
    "template",
    collisions
  ).map((t): ExposedTemplate => ({
    server: t.server,
    upstreamTemplate: t.key,
    template: { ...t.item, uriTemplate: t.exposed }
  })).sort((a, b) => compare(a.template.uriTemplate, b.template.uriTemplate))

  collisions.sort((a, b) => compare(a.kind, b.kind) || compare(a.uri, b.uri))

  const plain = new Map<string, Route>()
  for (const r of exposedResources) {
    if (r.resource.uri === r.upstreamUri) plain.set(r.upstreamUri, { server: r.server, uri: r.upstreamUri })
  }
  const patterns = exposedTemplates
    .filter((t) => t.template.uriTemplate === t.upstreamTemplate)
    .map((t) => ({ server: t.server, ...templatePattern(t.upstreamTemplate) }))
    .sort((a, b) => b.literal - a.literal || order(a.server, b.server))

  const route = (uri: string): Route | undefined => {
    const named = parseNamespaced(uri)
    if (named !== undefined) return named
    const listed = plain.get(uri)
    if (listed !== undefined) return listed
    if (ownScheme(uri)) return undefined
    const matched = patterns.find((p) => p.regex.test(uri))
    if (matched !== undefined) return { server: matched.server, uri }
    return options.fallback === undefined ? undefined : { server: options.fallback, uri }
  }

  return {
    resources: exposedResources,
    templates: exposedTemplates,
    collisions,
    route,
    exposeFor: (server, uri) => {
      const back = route(uri)
      return back !== undefined && back.server === server && back.uri === uri ? uri : namespaced(server, uri)
    }
  }
}
