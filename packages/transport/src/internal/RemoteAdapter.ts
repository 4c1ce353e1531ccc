/**
 * `McpClient.http`: a remote session as an `McpClient` (no process, so no pid, no stderr and no exit).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { InvalidUrl } from "../HttpError.ts"
import type { McpClient } from "../McpClient.ts"
import type * as McpSession from "../McpSession.ts"
import type { RemoteOptions } from "../RemoteClient.ts"
import * as RemoteClient from "../RemoteClient.ts"
import { sharedMembers } from "./SessionMembers.ts"

/** Opens the remote session and returns its client at once; `initialize` continues in the background. */
export const make = (
  options: RemoteOptions
): Effect.Effect<McpClient, InvalidUrl, Scope.Scope | HttpClient.HttpClient> =>
  Effect.map(RemoteClient.make(options), fromSession)

const fromSession = (session: McpSession.McpSession): McpClient => ({
  ...sharedMembers(session),
  get transport() {
    return session.transport
  },
  url: session.url,
  pid: undefined,
  stderrTail: () => [],
  exitInfo: () => Option.none(),
  awaitExit: Effect.never,
  forceClose: session.close,
  stats: session.stats
})
