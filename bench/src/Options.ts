/**
 * The harness's command line: presets (`--quick`, full), client and cell selection, knobs.
 *
 * @since 0.0.0
 */

/**
 * Everything a run needs to know. Durations are per client, per cell, per round.
 *
 * @since 0.0.0
 */
export interface RunConfig {
  readonly preset: "quick" | "full"
  readonly rounds: number
  readonly clients: ReadonlyArray<string>
  readonly cells: ReadonlyArray<string>
  /** Warm-up time before each measured tools/call or tools/list window, ms. */
  readonly warmupMs: number
  /** Measured window of each tools/call cell, ms. */
  readonly callMs: number
  /** Measured window of the tools/list scan cell, ms. */
  readonly listMs: number
  /** Spawn → ready → close cycles per client per round. */
  readonly lifecycleRepeats: number
  /** Fresh `node` processes per client per round for the import-time cell. */
  readonly importRepeats: number
  /** Calls made by the heap cell (sampled after forced GC at `heapSamples` evenly spaced points). */
  readonly heapCalls: number
  readonly heapSamples: number
  /** Scale of the cold cells' timed call counts (1 in the full preset). */
  readonly coldScale: number
  /** Upper bound for any one client in any one cell, ms: a hung client becomes an error, not a hang. */
  readonly cellTimeoutMs: number
  /** Write every per-round measurement as JSON here, if set. */
  readonly jsonOut: string | undefined
}

/**
 * The knobs of each preset.
 *
 * @since 0.0.0
 */
export const presets: Record<"quick" | "full", Omit<RunConfig, "preset" | "clients" | "cells" | "jsonOut">> = {
  quick: {
    rounds: 2,
    warmupMs: 100,
    callMs: 300,
    listMs: 300,
    lifecycleRepeats: 3,
    importRepeats: 1,
    heapCalls: 10_000,
    heapSamples: 6,
    coldScale: 0.25,
    cellTimeoutMs: 60_000
  },
  full: {
    rounds: 6,
    warmupMs: 300,
    callMs: 1_000,
    listMs: 1_000,
    lifecycleRepeats: 5,
    importRepeats: 2,
    heapCalls: 100_000,
    heapSamples: 11,
    coldScale: 1,
    cellTimeoutMs: 180_000
  }
}

/**
 * Usage text printed by `--help` and after a bad option.
 *
 * @since 0.0.0
 */
export const usage = `usage: pnpm bench [-- options]   (or: node --expose-gc bench/src/main.ts [options])

  --quick               short run (${presets.quick.rounds} rounds, ${presets.quick.callMs} ms windows, ${presets.quick.heapCalls} heap calls)
  --clients=a,b,...     clients to run (default: the wired ones); raw is always added: ratios need it
  --cells=a,b,...       cells to run (default: all)
  --rounds=N            rounds; each round rotates the client order (A B C D, B C D A, ...)
  --call-ms=MS          measured window per tools/call cell
  --list-ms=MS          measured window of the tools/list scan cell
  --warmup-ms=MS        warm-up before each measured window
  --heap-calls=N        calls made by the heap cell
  --json=PATH           also write every per-round measurement as JSON
  --help                this text`

/**
 * A bad command line, with the message to show.
 *
 * @since 0.0.0
 */
export class OptionsError extends Error {
  override readonly name = "OptionsError"
}

const positive = (flag: string, value: string): number => {
  const n = Number(value)
  if (!Number.isSafeInteger(n) || n < 1) throw new OptionsError(`${flag} must be a positive integer, got "${value}"`)
  return n
}

const list = (flag: string, value: string, known: ReadonlyArray<string>): ReadonlyArray<string> => {
  const ids = value.split(",").map((s) => s.trim()).filter((s) => s !== "")
  if (ids.length === 0) throw new OptionsError(`${flag} needs at least one name`)
  for (const id of ids) {
    if (!known.includes(id)) throw new OptionsError(`${flag}: unknown "${id}" (known: ${known.join(", ")})`)
  }
  return [...new Set(ids)]
}

/**
 * Parses argv (without node and script); `undefined` means `--help` was asked for. Throws {@link OptionsError}.
 *
 * @since 0.0.0
 */
export const parseOptions = (
  argv: ReadonlyArray<string>,
  known: {
    readonly clients: ReadonlyArray<string>
    readonly defaultClients: ReadonlyArray<string>
    readonly cells: ReadonlyArray<string>
  }
): RunConfig | undefined => {
  const flags = new Map<string, string>()
  for (const arg of argv) {
    if (arg === "--") continue
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg)
    if (match === null) throw new OptionsError(`unexpected argument "${arg}"`)
    flags.set(match[1] ?? "", match[2] ?? "")
  }
  if (flags.has("help")) return undefined
  const preset = flags.has("quick") ? "quick" : "full"
  const base = presets[preset]
  const take = (flag: string): string | undefined => {
    const value = flags.get(flag)
    flags.delete(flag)
    return value
  }
  take("quick")
  const clientsFlag = take("clients")
  const cellsFlag = take("cells")
  const rounds = take("rounds")
  const callMs = take("call-ms")
  const listMs = take("list-ms")
  const warmupMs = take("warmup-ms")
  const heapCalls = take("heap-calls")
  const jsonOut = take("json")
  if (flags.size > 0) throw new OptionsError(`unknown option --${[...flags.keys()][0]}`)
  const chosen = clientsFlag === undefined ? known.defaultClients : list("--clients", clientsFlag, known.clients)
  return {
    ...base,
    preset,
    clients: chosen.includes("raw") ? chosen : ["raw", ...chosen],
    cells: cellsFlag === undefined ? known.cells : list("--cells", cellsFlag, known.cells),
    rounds: rounds === undefined ? base.rounds : positive("--rounds", rounds),
    callMs: callMs === undefined ? base.callMs : positive("--call-ms", callMs),
    listMs: listMs === undefined ? base.listMs : positive("--list-ms", listMs),
    warmupMs: warmupMs === undefined ? base.warmupMs : positive("--warmup-ms", warmupMs),
    heapCalls: heapCalls === undefined ? base.heapCalls : positive("--heap-calls", heapCalls),
    jsonOut: jsonOut === undefined || jsonOut === "" ? undefined : jsonOut
  }
}
