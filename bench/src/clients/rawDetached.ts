/**
 * Raw baseline with the server started detached: in its own session and process group.
 *
 * @since 0.0.0
 */
import type { ClientAdapter } from "../ClientAdapter.ts"
import { makeRawAdapter } from "./rawStdio.ts"

/**
 * Plain raw (one write per message), but spawned with `detached: true`, as every client that signals a server's
 * whole process group must be (Node can only make a child a process-group leader through `setsid`). Effect's
 * `effect/process` spawner does this by default, so the `effect` and `fleet` columns pay it; `raw` and `sdk` do
 * not. With Linux's scheduler autogroups, a new session is also a new scheduling group, which changes how client
 * and server share the cores: this column measures that cost on its own.
 *
 * @since 0.0.0
 */
export const adapter: ClientAdapter = makeRawAdapter({
  id: "raw-detached",
  label: "raw, server spawned detached (own session and process group, as process-group kill requires)",
  writeMode: "each",
  detached: true
})
