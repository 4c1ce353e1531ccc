/**
 * Raw baseline with stdin writes coalesced per event-loop turn (an optional extra column).
 *
 * @since 0.0.0
 */
import type { ClientAdapter } from "../ClientAdapter.ts"
import { makeRawAdapter } from "./rawStdio.ts"

/**
 * Raw, but every frame queued during one event-loop turn goes out in a single `write` (`setImmediate`).
 *
 * @since 0.0.0
 */
export const adapter: ClientAdapter = makeRawAdapter({
  id: "raw-immediate",
  label: "raw, stdin writes coalesced per event-loop turn (setImmediate)",
  writeMode: "immediate"
})
