/**
 * Raw baseline: one `stdin.write` per message.
 *
 * @since 0.0.0
 */
import type { ClientAdapter } from "../ClientAdapter.ts"
import { makeRawAdapter } from "./rawStdio.ts"

/**
 * The plain raw baseline every ratio in the report is taken against.
 *
 * @since 0.0.0
 */
export const adapter: ClientAdapter = makeRawAdapter({
  id: "raw",
  label: "node:child_process + Map of pending ids + JSON.parse, one write per message",
  writeMode: "each"
})
