/**
 * An in-memory `ProcessTree`: a table the test writes, and processes that obey (or ignore) the signals sent to
 * them. Every read of the table and every signal is recorded, with the `Clock` time it happened at.
 */
import { ProcessTree } from "@mcp-fleet/transport"
import { Clock, Effect, Layer } from "effect"

/** A process of the fake table, and which signals end it. */
export interface FakeProcess extends ProcessTree.Entry {
  /** Signals it ignores (SIGKILL included makes it unkillable, as one stuck in the kernel). */
  readonly ignores?: ReadonlyArray<ProcessTree.Signal> | undefined
}

/** What happened, in order, with the clock's time. */
export type Event =
  | { readonly _tag: "read"; readonly at: number }
  | { readonly _tag: "signal"; readonly at: number; readonly pid: number; readonly signal: ProcessTree.Signal }

export const SELF = 4_242

export const make = (
  processes: ReadonlyArray<FakeProcess>,
  options: { readonly unreadable?: boolean; readonly hangs?: boolean; readonly onRead?: () => void } = {}
) => {
  const table = new Map(processes.map((p) => [p.pid, p]))
  const events: Array<Event> = []
  const service = ProcessTree.ProcessTree.of({
    self: SELF,
    table: Effect.gen(function*() {
      events.push({ _tag: "read", at: yield* Clock.currentTimeMillis })
      options.onRead?.()
      if (options.hangs === true) return yield* Effect.never
      if (options.unreadable === true) {
        return yield* new ProcessTree.ProcessTableUnreadable({ reason: "the test says so" })
      }
      return [...table.values()].map(({ pid, ppid, start, zombie }) => ({ pid, ppid, start, zombie }))
    }),
    signal: (pid, signal) =>
      Effect.gen(function*() {
        events.push({ _tag: "signal", at: yield* Clock.currentTimeMillis, pid, signal })
        const target = table.get(pid)
        if (target !== undefined && target.ignores?.includes(signal) !== true) table.delete(pid)
      })
  })
  return {
    service,
    layer: Layer.succeed(ProcessTree.ProcessTree, service),
    events,
    /** The signals sent, as `pid:signal@time`. */
    signals: () => events.flatMap((e) => e._tag === "signal" ? [`${e.pid}:${e.signal}@${e.at}`] : []),
    /** Whether `pid` is still in the table. */
    running: (pid: number) => table.has(pid),
    /** Replaces a process (a pid reused by another process, say). */
    put: (process: FakeProcess) => void table.set(process.pid, process),
    remove: (pid: number) => void table.delete(pid)
  }
}

/** An entry of the fake table. */
export const entry = (pid: number, ppid: number, extra: Partial<FakeProcess> = {}): FakeProcess => ({
  pid,
  ppid,
  start: `t${pid}`,
  zombie: false,
  ...extra
})
