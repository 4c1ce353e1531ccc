/**
 * Raw baseline with stdin writes coalesced per microtask checkpoint.
 *
 * @since 0.0.0
 */
import type { ClientAdapter } from "../ClientAdapter.ts"
import { makeRawAdapter } from "./rawStdio.ts"

/**
 * Raw, but every frame queued before the next microtask checkpoint goes out in a single `write`
 * (`queueMicrotask`). Measured against the `setImmediate` variant (`raw-immediate`), it kept the same or better
 * throughput at lower CPU per call, so it is the batched baseline of the default run.
 *
 * @since 0.0.0
 */
export const adapter: ClientAdapter = makeRawAdapter({
  id: "raw-batched",
  label: "raw, stdin writes coalesced per microtask checkpoint (queueMicrotask)",
  writeMode: "microtask"
})
