/**
 * The `ProcessTree` service on Node: the table from `/proc/<pid>/stat` where there is a `/proc` (Linux), else from
 * `ps -A -o pid=,ppid=,stat=,lstart=` (macOS, the BSDs); signals with `process.kill`.
 *
 * The table is read through effect's `FileSystem` and `ChildProcessSpawner` services (`NodeServices.layer`
 * provides both); only the signal and this process's own pid need Node itself, which is why this is a layer of
 * its own and not part of the transport: the transport knows the `ProcessTree` service only.
 *
 * @example
 * ```ts
 * import { NodeServices } from "@effect/platform-node"
 * import { McpClient } from "@mcp-fleet/transport"
 * import * as NodeProcessTree from "@mcp-fleet/transport/NodeProcessTree"
 * import { Effect, Layer } from "effect"
 *
 * const program = Effect.scoped(McpClient.make({ command: "npx", args: ["-y", "some-mcp-server"] }))
 * program.pipe(Effect.provide(NodeProcessTree.layer.pipe(Layer.provideMerge(NodeServices.layer))))
 * ```
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type { Entry, Signal } from "./ProcessTree.ts"
import { parsePs, parseStat, ProcessTableUnreadable, ProcessTree } from "./ProcessTree.ts"

/** How many `/proc/<pid>/stat` files are read at once. */
const READ_CONCURRENCY = 16

/**
 * Reads the table from `/proc` (every numeric entry's `stat`; one that vanished meanwhile is skipped), or from `ps`
 * when there is no `/proc`.
 *
 * @since 0.4.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*() {
  const fs = yield* FileSystem.FileSystem
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const fromProc = fs.readDirectory("/proc").pipe(
    Effect.flatMap((names) =>
      Effect.forEach(
        names.filter((name) => /^\d+$/.test(name)),
        (name) => fs.readFileString(`/proc/${name}/stat`).pipe(Effect.option),
        { concurrency: READ_CONCURRENCY }
      )
    ),
    Effect.map((stats) =>
      stats.flatMap((stat): Array<Entry> => {
        if (stat._tag === "None") return []
        const entry = parseStat(stat.value)
        return entry === undefined ? [] : [entry]
      })
    )
  )
  const fromPs = spawner.string(ChildProcess.make("ps", ["-A", "-o", "pid=,ppid=,stat=,lstart="])).pipe(
    Effect.map(parsePs)
  )
  const table = fromProc.pipe(
    Effect.catch(() => fromPs),
    Effect.mapError((error) => new ProcessTableUnreadable({ reason: `neither /proc nor ps: ${error.message}` })),
    Effect.flatMap((entries) =>
      entries.length > 0
        ? Effect.succeed(entries)
        : Effect.fail(new ProcessTableUnreadable({ reason: "it listed no process" }))
    )
  )
  const signal = (pid: number, signal: Signal) =>
    Effect.try({ try: () => process.kill(pid, signal), catch: (error) => error }).pipe(Effect.ignore)
  return ProcessTree.of({ self: process.pid, table, signal })
})

/**
 * The `ProcessTree` service on Node. Needs `FileSystem` and `ChildProcessSpawner` (`NodeServices.layer`).
 *
 * @since 0.4.0
 * @category layers
 */
export const layer: Layer.Layer<ProcessTree, never, FileSystem.FileSystem | ChildProcessSpawner.ChildProcessSpawner> =
  Layer.effect(ProcessTree, make())
