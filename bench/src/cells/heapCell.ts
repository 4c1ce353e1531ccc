/**
 * The heap cell: heap after forced GC, sampled over many calls in a separate `node --expose-gc` process.
 *
 * @since 0.0.0
 */
import { fileURLToPath } from "node:url"
import type { Cell, CellContext, Measurement } from "../Cell.ts"
import type { ClientAdapter } from "../ClientAdapter.ts"
import { runNode } from "../NodeChild.ts"

const probePath = fileURLToPath(new URL("../heapProbe.ts", import.meta.url))

interface ProbeResult {
  readonly calls: number
  readonly elapsedMs: number
  readonly heapMB: ReadonlyArray<number>
}

const runProbe = async (args: ReadonlyArray<string>): Promise<ProbeResult> => {
  const { code, stderr, stdout } = await runNode(["--expose-gc", probePath, ...args])
  const line = stdout.trim().split("\n").pop() ?? ""
  if (code !== 0 || line === "") throw new Error(`heap probe failed (exit ${code}): ${stderr.slice(-800)}`)
  const parsed: ProbeResult = JSON.parse(line)
  if (!Array.isArray(parsed.heapMB) || parsed.heapMB.length < 2) {
    throw new Error(`heap probe printed an unexpected line: ${line.slice(0, 200)}`)
  }
  return parsed
}

/**
 * Measured once per run: `heapCalls` calls at concurrency 64 with a 64 B payload, `heapSamples` samples of
 * `heapUsed` after `gc()`. Flat = no leak: compare the first and last samples, and the second half alone.
 *
 * @since 0.0.0
 */
export const heapCell: Cell = {
  id: "heap",
  title: "heap after forced GC over many calls (concurrency 64, 64 B)",
  once: true,
  metrics: [
    { key: "calls", label: "calls made", digits: 0, ratio: false },
    { key: "firstMB", label: "heap MB, first sample (after warm-up)", digits: 2, ratio: false },
    { key: "lastMB", label: "heap MB, last sample", digits: 2, ratio: false },
    { key: "maxMB", label: "heap MB, max sample", digits: 2, ratio: false },
    { key: "growthSecondHalfMB", label: "growth MB over the second half", digits: 2, ratio: false }
  ],
  run: async (adapter: ClientAdapter, context: CellContext): Promise<Measurement> => {
    const result = await runProbe([
      `--client=${adapter.id}`,
      `--calls=${context.config.heapCalls}`,
      `--samples=${context.config.heapSamples}`,
      "--concurrency=64",
      "--payload=64"
    ])
    const samples = result.heapMB
    const first = samples[0] ?? Number.NaN
    const last = samples[samples.length - 1] ?? Number.NaN
    const middle = samples[Math.floor((samples.length - 1) / 2)] ?? Number.NaN
    context.note(
      `heap ${adapter.id} (${result.calls} calls in ${(result.elapsedMs / 1000).toFixed(1)} s): ${
        samples.map((mb) => mb.toFixed(2)).join(" ")
      } MB`
    )
    return {
      calls: result.calls,
      firstMB: first,
      lastMB: last,
      maxMB: Math.max(...samples),
      growthSecondHalfMB: last - middle
    }
  }
}
