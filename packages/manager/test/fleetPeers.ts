/**
 * An in-memory fleet for the manager's unit tests: each server is a command name whose peer script may
 * depend on how many times it has been spawned.
 */
import { FakeSpawner, McpPeer } from "@mcp-fleet/testing"
import { Effect } from "effect"
import type { Scope } from "effect"

export interface Spawned {
  readonly count: Record<string, number>
  readonly peers: Record<string, Array<FakeSpawner.Peer>>
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
  const spawned: Spawned = { count: {}, peers: {} }
  const layer = FakeSpawner.layer((peer) => {
    const name = peer.command.command
    const index = spawned.count[name] ?? 0
    spawned.count[name] = index + 1
    ;(spawned.peers[name] ??= []).push(peer)
    const script = scripts[name]
    return script === undefined ? peer.exit(127) : script(index, peer)
  }, options)
  return { layer, spawned }
}

/** The same peer script on every spawn. */
export const always = (script: McpPeer.Script): ScriptFor => (_, peer) => McpPeer.serve(script)(peer)
