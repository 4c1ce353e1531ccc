/**
 * The lifecycle cell: startup (spawn → ready) and shutdown (close → server process gone).
 *
 * @since 0.0.0
 */
import type { Cell, CellContext, Measurement } from "../Cell.ts"
import type { ClientAdapter } from "../ClientAdapter.ts"
import { echoLaunch } from "../EchoServer.ts"
import { median } from "../Stats.ts"
import { waitUntilGone } from "../Timing.ts"

const GONE_TIMEOUT_MS = 15_000

/**
 * `lifecycleRepeats` cycles of start → one call → close. Startup is timed from `start()` to ready; shutdown
 * from `close()` until the server's pid no longer exists (if `close` resolves earlier, the wait continues).
 * Reports the median of each per round.
 *
 * @since 0.0.0
 */
export const lifecycleCell: Cell = {
  id: "lifecycle",
  title: "startup (spawn → ready) and shutdown (close → process gone)",
  once: false,
  metrics: [
    { key: "startupMs", label: "startup ms", digits: 1, ratio: true },
    { key: "shutdownMs", label: "shutdown ms", digits: 1, ratio: true }
  ],
  run: async (adapter: ClientAdapter, context: CellContext): Promise<Measurement> => {
    const startups: Array<number> = []
    const shutdowns: Array<number> = []
    for (let i = 0; i < context.config.lifecycleRepeats; i++) {
      const launch = echoLaunch({})
      const t0 = performance.now()
      const session = await adapter.start(launch)
      startups.push(performance.now() - t0)
      const echoed = await session.call("ready?")
      if (echoed !== "ready?") throw new Error(`${adapter.id}: echo failed right after start`)
      const t1 = performance.now()
      await session.close()
      await waitUntilGone(session.pid, GONE_TIMEOUT_MS)
      shutdowns.push(performance.now() - t1)
    }
    return { startupMs: median(startups), shutdownMs: median(shutdowns) }
  }
}
