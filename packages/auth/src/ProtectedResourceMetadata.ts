/**
 * Protected Resource Metadata (RFC 9728): which authorization servers protect an MCP server, and which scopes
 * it knows. Found at the `resource_metadata` URL of a challenge, else at the path-based well-known URL, then at
 * the root well-known URL.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { DiscoveryFailed, ResourceMismatch } from "./AuthError.ts"
import { fetchDocument } from "./internal/httpJson.ts"
import * as UrlPolicy from "./UrlPolicy.ts"

/**
 * The fields of a Protected Resource Metadata document that an MCP client uses.
 *
 * @since 0.1.0
 * @category models
 */
export const ProtectedResourceMetadata = Schema.Struct({
  resource: Schema.String,
  authorization_servers: Schema.optionalKey(Schema.Array(Schema.String)),
  scopes_supported: Schema.optionalKey(Schema.Array(Schema.String))
})

/**
 * @since 0.1.0
 * @category models
 */
export type ProtectedResourceMetadata = typeof ProtectedResourceMetadata.Type

const decode = Schema.decodeUnknownOption(ProtectedResourceMetadata)

/**
 * The canonical URI of an MCP server for the `resource` parameter (RFC 8707): no fragment, no query, and no
 * trailing slash on an empty path.
 *
 * @since 0.1.0
 * @category urls
 */
export const canonicalResource = (serverUrl: string | URL): string => {
  const url = new URL(serverUrl)
  url.hash = ""
  url.search = ""
  const href = url.href
  return url.pathname === "/" ? href.slice(0, -1) : href
}

/**
 * The URLs to ask, in order: the challenge's `resource_metadata`, then
 * `/.well-known/oauth-protected-resource<path>` (when the server URL has a path), then the root well-known.
 *
 * @since 0.1.0
 * @category urls
 */
export const candidateUrls = (serverUrl: string | URL, resourceMetadata: string | undefined): ReadonlyArray<string> => {
  const url = new URL(serverUrl)
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "")
  const urls = [
    ...(resourceMetadata === undefined ? [] : [resourceMetadata]),
    ...(path === "" ? [] : [`${url.origin}/.well-known/oauth-protected-resource${path}`]),
    `${url.origin}/.well-known/oauth-protected-resource`
  ]
  return [...new Set(urls)]
}

/**
 * Whether metadata advertising `advertised` may be used for the MCP server at `serverUrl` (RFC 9728 §3.3):
 * the same origin, and the server's path at or below the advertised path.
 *
 * @since 0.1.0
 * @category validation
 */
export const resourceMatches = (serverUrl: string, advertised: string): boolean => {
  const server = URL.parse(canonicalResource(serverUrl))
  const resource = URL.parse(advertised)
  if (server === null || resource === null || server.origin !== resource.origin) return false
  const base = resource.pathname.replace(/\/$/, "")
  return server.pathname === base || server.pathname.startsWith(`${base}/`) || base === ""
}

/**
 * A Protected Resource Metadata document and the URL it was found at.
 *
 * @since 0.2.0
 * @category models
 */
export interface Found {
  readonly metadata: ProtectedResourceMetadata
  readonly url: string
}

/**
 * Finds the Protected Resource Metadata of the MCP server at `serverUrl`, trying {@link candidateUrls} in order, and
 * says where it was found. The challenge's `resource_metadata` URL is asked only when the {@link UrlPolicy} allows
 * it (else it is skipped, with a warning, and the well-known URLs are tried). A candidate that answers non-2xx or
 * not the metadata is skipped; a document for another resource is refused. A document whose `resource` is a parent
 * path of the server (same origin) is accepted, for discovery: see {@link resourceParameter} for what is sent.
 *
 * @since 0.2.0
 * @category discovery
 */
export const discoverFound: (
  serverUrl: string,
  resourceMetadata: string | undefined
) => Effect.Effect<Found, DiscoveryFailed | ResourceMismatch, HttpClient.HttpClient> = Effect.fnUntraced(function*(
  serverUrl: string,
  resourceMetadata: string | undefined
) {
  const tried: Array<string> = []
  for (const candidate of candidateUrls(serverUrl, resourceMetadata)) {
    const verdict = UrlPolicy.judge("protected resource metadata", candidate, serverUrl)
    if (verdict._tag === "Refused") {
      tried.push(`${UrlPolicy.show(candidate)} (refused: ${verdict.reason})`)
      yield* Effect.logWarning("Refused a protected resource metadata URL named by the server").pipe(
        Effect.annotateLogs({
          server: canonicalResource(serverUrl),
          url: UrlPolicy.show(candidate),
          reason: verdict.reason
        })
      )
      continue
    }
    tried.push(UrlPolicy.show(candidate))
    const metadata = yield* fetchDocument(verdict.url.href, decode)
    if (Option.isNone(metadata)) continue
    if (!resourceMatches(serverUrl, metadata.value.resource)) {
      return yield* new ResourceMismatch({
        expected: canonicalResource(serverUrl),
        advertised: UrlPolicy.show(metadata.value.resource)
      })
    }
    return { metadata: metadata.value, url: verdict.url.href }
  }
  return yield* new DiscoveryFailed({ what: "protected resource metadata", tried })
})

/**
 * Finds the Protected Resource Metadata of the MCP server at `serverUrl` ({@link discoverFound}, without where).
 *
 * @since 0.1.0
 * @category discovery
 */
export const discover = (
  serverUrl: string,
  resourceMetadata: string | undefined
): Effect.Effect<ProtectedResourceMetadata, DiscoveryFailed | ResourceMismatch, HttpClient.HttpClient> =>
  Effect.map(discoverFound(serverUrl, resourceMetadata), (found) => found.metadata)

/**
 * The `resource` (RFC 8707) to ask a token for: the server's canonical URI, always, with one exception that RFC 9728
 * makes: the origin's root document (`/.well-known/oauth-protected-resource`), reached by the spec's own fallback
 * (the challenge named no document and there is none at the server's path), describes the origin itself, so its
 * `resource`, the origin, is sent as published. A broader `resource` anywhere else (a document the server pointed
 * at, or the one at its path) is accepted for discovery only: the token is never asked for more than the server.
 *
 * @since 0.2.0
 * @category resource
 */
export const resourceParameter = (
  serverUrl: string,
  found: Found | undefined,
  hinted: string | undefined
): string => {
  const canonical = canonicalResource(serverUrl)
  if (found === undefined || hinted !== undefined) return canonical
  const origin = new URL(serverUrl).origin
  const published = found.metadata.resource
  const rootDocument = found.url === `${origin}/.well-known/oauth-protected-resource`
  return rootDocument && URL.parse(published) !== null && canonicalResource(published) === origin
    ? published
    : canonical
}
