/**
 * An in-memory fleet for the manager's unit tests: each server is a command name whose peer script may
 * depend on how many times it has been spawned.
 */
import type { ManagerOptions, ServerHealth } from "@mcp-fleet/manager"
import { McpManager } from "@mcp-fleet/manager"
import { FakeSpawner, McpPeer } from "@mcp-fleet/testing"
import { Context, Deferred, Effect, Exit, Layer, Stream } from "effect"
import type { Scope } from "effect"
import { ChildProcessSpawner } from "effect/process"

export interface Spawned {
  readonly count: Record<string, number>
  readonly peers: Record<string, Array<FakeSpawner.Peer>>
  /** Completes once `name` has been spawned `times` times (a latch on the spawner's own events). */
  readonly spawns: (name: string, times: number) => Effect.Effect<void>
}

/**
 * A count that tests latch on: `bump` it where the event happens (a callback, a peer script), `reach(n)` waits until
 * it has been bumped `n` times.
 */
export interface Tally {
  readonly bump: () => void
  readonly count: () => number
  readonly reach: (n: number) => Effect.Effect<void>
}

export const tally = (): Tally => {
  let count = 0
  const waiting: Array<{ readonly n: number; readonly done: Deferred.Deferred<void> }> = []
  return {
    bump: () => {
      count++
      for (let i = waiting.length - 1; i >= 0; i--) {
        if (count >= waiting[i]!.n) Deferred.doneUnsafe(waiting.splice(i, 1)[0]!.done, Exit.void)
      }
    },
    count: () => count,
    reach: (n) =>
      Effect.suspend(() => {
        if (count >= n) return Effect.void
        const done = Deferred.makeUnsafe<void>()
        waiting.push({ n, done })
        return Deferred.await(done)
      })
  }
}

export type ScriptFor = (spawnIndex: number, peer: FakeSpawner.Peer) => Effect.Effect<void, never, Scope.Scope>

/** Serves `tools` on tools/list and echoes calls with the server's name. */
export const toolServer = (name: string, tools: () => ReadonlyArray<string>, extra: McpPeer.Script = {}) =>
  McpPeer.serve({
    ...extra,
    onRequest: extra.onRequest ?? ((msg) =>
      Effect.succeed(
        msg.method === "tools/list"
          ? { tools: tools().map((t) => ({ name: t, inputSchema: { type: "object" } })) }
          : msg.method === "tools/call"
          ? { content: [{ type: "text", text: `${name}:${JSON.stringify(msg.params)}` }] }
          : msg.method === "ping"
          ? {}
          : undefined
      ))
  })

export const fleetSpawner = (scripts: Record<string, ScriptFor>, options?: FakeSpawner.Options) => {
  const tallies = new Map<string, Tally>()
  const tallyOf = (name: string) => {
    let found = tallies.get(name)
    if (found === undefined) tallies.set(name, found = tally())
    return found
  }
  const spawned: Spawned = { count: {}, peers: {}, spawns: (name, times) => tallyOf(name).reach(times) }
  const layer = FakeSpawner.layer((peer) => {
    const name = peer.command.command
    const index = spawned.count[name] ?? 0
    spawned.count[name] = index + 1
    tallyOf(name).bump()
    ;(spawned.peers[name] ??= []).push(peer)
    const script = scripts[name]
    return script === undefined ? peer.exit(127) : script(index, peer)
  }, options)
  return { layer, spawned }
}

/** The same peer script on every spawn. */
export const always = (script: McpPeer.Script): ScriptFor => (_, peer) => McpPeer.serve(script)(peer)

/** Waits, on the snapshots stream (no polling), until `name`'s health satisfies `check`. */
export const until = (
  manager: McpManager.McpManager["Service"],
  name: string,
  check: (h: ServerHealth.ServerHealth) => boolean
): Effect.Effect<ServerHealth.ServerHealth> =>
  manager.snapshots.pipe(
    Stream.map((all) => all.find((h) => h.name === name)),
    Stream.filter((h): h is ServerHealth.ServerHealth => h !== undefined && check(h)),
    Stream.runHead,
    Effect.flatMap((found) => found._tag === "Some" ? Effect.succeed(found.value) : Effect.die(`${name}: no snapshot`))
  )

/** Builds the manager layer on an in-memory spawner and returns the service. */
export const build = (
  options: ManagerOptions.ManagerOptions,
  spawner: Layer.Layer<ChildProcessSpawner.ChildProcessSpawner>
): Effect.Effect<McpManager.McpManager["Service"], never, Scope.Scope> =>
  Effect.map(
    Layer.build(McpManager.layer(options).pipe(Layer.provide(spawner))),
    (context) => Context.get(context, McpManager.McpManager)
  )

/**
 * The processes of `inner` keep their stdout open after they exit, until `release` completes: as when a
 * grandchild (an `npx` wrapper's server) still holds the pipe. The transport then sees the exit at once but
 * cannot finish reading, so (under `TestClock`) the client stays exited-but-not-terminated until `release`.
 */
export const holdingStdout = (
  inner: Layer.Layer<ChildProcessSpawner.ChildProcessSpawner>,
  release: Deferred.Deferred<void>
): Layer.Layer<ChildProcessSpawner.ChildProcessSpawner> =>
  Layer.effect(
    ChildProcessSpawner.ChildProcessSpawner,
    Effect.map(ChildProcessSpawner.ChildProcessSpawner, (spawner) =>
      ChildProcessSpawner.make((command) =>
        Effect.map(spawner.spawn(command), (handle) =>
          ChildProcessSpawner.makeHandle({
            ...handle,
            stdout: Stream.concat(handle.stdout, Stream.fromEffectDrain(Deferred.await(release)))
          }))
      ))
  ).pipe(Layer.provide(inner))
