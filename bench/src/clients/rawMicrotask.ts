/**
 * Raw baseline with stdin writes coalesced per microtask checkpoint (an optional extra column).
 *
 * @since 0.0.0
 */
import type { ClientAdapter } from "../ClientAdapter.ts"
import { makeRawAdapter } from "./rawStdio.ts"

/**
 * Raw, but frames queued before the next microtask checkpoint go out in a single `write` (`queueMicrotask`).
 *
 * @since 0.0.0
 */
export const adapter: ClientAdapter = makeRawAdapter({
  id: "raw-microtask",
  label: "raw, stdin writes coalesced per microtask checkpoint (queueMicrotask)",
  writeMode: "microtask"
})
