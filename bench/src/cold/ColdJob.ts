/**
 * What one cold worker process measures (see `coldWorker.ts`), passed to it as JSON.
 *
 * @since 0.0.0
 */

/**
 * One cold job: a client, the work, the warm-up and the timed count.
 *
 * @since 0.0.0
 */
export interface ColdJob {
  /** A client id of `src/clients/registry.ts`. */
  readonly client: string
  /** Instead of `client`: a directory holding a copy of the transport's `src/` (`compareTransport.ts --cell=cold`). */
  readonly transportDir?: string | undefined
  /** `call`: `count` echo calls at `concurrency`; `list`: `count` full scans of `tools` tools in pages of `pageSize`. */
  readonly kind: "call" | "list"
  readonly concurrency: number
  readonly payloadBytes: number
  readonly tools: number
  readonly pageSize: number
  /** Echo calls (or, for `list`, the equivalent number of pages) made before the timed part. */
  readonly warmupCalls: number
  /** Timed calls or scans. */
  readonly count: number
}
