/**
 * A description of the machine the numbers were taken on.
 *
 * @since 0.0.0
 */
import { readFileSync } from "node:fs"
import { availableParallelism, cpus, loadavg, release, totalmem } from "node:os"

/**
 * Cores, CPU model, memory, OS and Node version.
 *
 * @since 0.0.0
 */
export interface MachineInfo {
  readonly cores: number
  readonly cpuModel: string
  readonly memoryGiB: number
  readonly os: string
  readonly node: string
}

const cpuModelFromProc = (): string | undefined => {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))
    return match?.[1]?.trim()
  } catch {
    return undefined
  }
}

/**
 * Reads the machine description (`/proc/cpuinfo` for the CPU model where it exists).
 *
 * @since 0.0.0
 */
export const machineInfo = (): MachineInfo => ({
  cores: availableParallelism(),
  cpuModel: cpuModelFromProc() ?? cpus()[0]?.model ?? "unknown",
  memoryGiB: totalmem() / 1024 ** 3,
  os: `${process.platform} ${release()}`,
  node: process.version
})

/**
 * One Markdown line describing the machine.
 *
 * @since 0.0.0
 */
export const formatMachine = (m: MachineInfo): string =>
  `${m.cores} cores (${m.cpuModel}), ${m.memoryGiB.toFixed(1)} GiB RAM, ${m.os}, Node ${m.node}`

/**
 * The 1-minute load average now: other work competing for the cores makes the numbers noisier.
 *
 * @since 0.0.0
 */
export const loadAverage = (): number => loadavg()[0] ?? Number.NaN
