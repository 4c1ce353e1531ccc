/**
 * One `McpAuth` for a fleet whose servers authorize in different ways: each server named here gets its own
 * strategy (a machine grant, or the interactive flow with its own pre-registered client), every other server the
 * fallback. A server is matched by its canonical URI (scheme and host lower-cased, no fragment), as `McpAuth`
 * keys its tokens.
 *
 * ```ts
 * const auth = AuthRoutes.make([[reportsUrl, serviceAccount]], interactive)
 * ```
 *
 * @since 0.2.0
 */
import type * as McpAuth from "./McpAuth.ts"
import { canonicalResource } from "./ProtectedResourceMetadata.ts"

/**
 * The service that answers for each server.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  routes: ReadonlyArray<readonly [server: string, auth: McpAuth.Service]>,
  fallback: McpAuth.Service
): McpAuth.Service => {
  const byServer = new Map(routes.map(([server, auth]) => [canonicalResource(server), auth] as const))
  const pick = (server: string): McpAuth.Service => {
    const parsed = URL.parse(server)
    return (parsed === null ? undefined : byServer.get(canonicalResource(parsed))) ?? fallback
  }
  return {
    headers: (server, request) => pick(server).headers(server, request),
    onChallenge: (server, challenge) => pick(server).onChallenge(server, challenge),
    onSuccess: (server, response) => pick(server).onSuccess(server, response)
  }
}
