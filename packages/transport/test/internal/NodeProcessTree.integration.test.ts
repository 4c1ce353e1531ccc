/**
 * `NodeProcessTree.layer` on this machine: the table from `/proc`, and from `ps` when there is no `/proc` (a
 * `FileSystem` that has none), both list this process under its parent with the same start on each read; a
 * signal to a pid that is gone is no error.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ProcessTree } from "@mcp-fleet/transport"
import * as NodeProcessTree from "@mcp-fleet/transport/NodeProcessTree"
import { Effect, FileSystem, Layer } from "effect"

const treeWith = (fs: Layer.Layer<FileSystem.FileSystem>) =>
  NodeProcessTree.layer.pipe(Layer.provide(Layer.merge(NodeServices.layer, fs)))

/** A file system without `/proc`, as on macOS. */
const noProc = FileSystem.layerNoop({})

describe("NodeProcessTree", () => {
  for (
    const [source, layer] of [["/proc", NodeProcessTree.layer.pipe(Layer.provide(NodeServices.layer))], [
      "ps",
      treeWith(noProc)
    ]] as const
  ) {
    it.live(`${source}: this process is in the table, under its parent, with a start that does not change`, () =>
      Effect.gen(function*() {
        const tree = yield* ProcessTree.ProcessTree
        assert.strictEqual(tree.self, process.pid)
        const first = (yield* tree.table).find((e) => e.pid === process.pid)
        const second = (yield* tree.table).find((e) => e.pid === process.pid)
        assert.isDefined(first)
        assert.strictEqual(first!.ppid, process.ppid)
        assert.isFalse(first!.zombie)
        assert.strictEqual(second!.start, first!.start)
        // /proc's starttime is clock ticks since boot; ps's lstart is a date ("Tue Feb 13 09:41:07 2024").
        assert.match(first!.start, source === "/proc" ? /^\d+$/ : /\d\d:\d\d:\d\d/)
        // No pid is this large on Linux or macOS: a signal to it is ignored, not an error.
        yield* tree.signal(2 ** 30, "SIGTERM")
      }).pipe(Effect.provide(layer)))
  }
})
