/**
 * Finds this soak run's fake-server processes with `ps` (through `LeakGuard.scan`), counting only the ones
 * tagged `run-id=<this run>`, so that tests or soaks running at the same time on this machine do not count.
 *
 * @since 0.0.0
 */
import type { TestingError } from "@mcp-fleet/testing"
import { LeakGuard } from "@mcp-fleet/testing"
import { Effect } from "effect"
import type { ChildProcessSpawner } from "effect/process"

/**
 * The live fake-server processes of this run (pid and command line).
 *
 * @since 0.0.0
 * @category scanning
 */
export const scan = (
  runId: string
): Effect.Effect<
  ReadonlyArray<TestingError.ProcessEntry>,
  TestingError.ProcessScanFailed,
  ChildProcessSpawner.ChildProcessSpawner
> =>
  LeakGuard.scan({ runId }).pipe(
    Effect.map((entries) => entries.filter((entry) => entry.args.split(/\s+/).includes(`run-id=${runId}`)))
  )

/**
 * SIGKILLs the given processes (used after reporting leftovers, so a failed soak does not leave them running).
 *
 * @since 0.0.0
 * @category scanning
 */
export const killAll = (
  entries: ReadonlyArray<TestingError.ProcessEntry>
): Effect.Effect<void, never, ChildProcessSpawner.ChildProcessSpawner> => LeakGuard.killAll(entries)
