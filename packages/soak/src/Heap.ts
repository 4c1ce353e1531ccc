/**
 * Heap measurement after forced garbage collection (`node --expose-gc`).
 *
 * @since 0.0.0
 */
import { Effect } from "effect"

/**
 * One heap reading.
 *
 * @since 0.0.0
 * @category models
 */
export interface HeapSample {
  /** `process.memoryUsage().heapUsed`, bytes. */
  readonly heapUsed: number
  /** Whether a full GC ran first (false when node was started without `--expose-gc`). */
  readonly forcedGc: boolean
}

/**
 * Runs a full GC twice (the second pass collects what the first one's finalizers released) and reads
 * `heapUsed`.
 *
 * @since 0.0.0
 * @category measuring
 */
export const sample: Effect.Effect<HeapSample> = Effect.sync(() => {
  const gc = globalThis.gc
  if (gc !== undefined) {
    gc()
    gc()
  }
  return { heapUsed: process.memoryUsage().heapUsed, forcedGc: gc !== undefined }
})

/**
 * Bytes as MiB with one decimal.
 *
 * @since 0.0.0
 * @category formatting
 */
export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`
