/**
 * An in-memory fleet (FakeSpawner + McpPeer scripts) behind a real McpManager, and a scripted
 * LanguageModel that records what each turn received.
 */
import { McpManager } from "@mcp-fleet/manager"
import type { ManagerOptions } from "@mcp-fleet/manager"
import { FakeSpawner, McpPeer } from "@mcp-fleet/testing"
import { Context, Effect, Layer, Predicate, Queue, Stream } from "effect"
import type { Scope } from "effect"
import { LanguageModel } from "effect/ai"
import type { Response } from "effect/ai"

export interface ToolSpec {
  readonly tool: Readonly<Record<string, unknown>>
  /** The `tools/call` result for this tool (default: a text echo of the arguments). */
  readonly result?: ((args: unknown) => unknown) | undefined
  /** Never answer a call of this tool. */
  readonly hang?: boolean | undefined
}

/** Servers by name, each with its current tools (read at every request; `undefined`: never initializes). */
export type Servers = Record<string, () => ReadonlyArray<ToolSpec> | undefined>

export interface Fleet {
  readonly manager: McpManager.Service
  readonly peers: Record<string, Array<FakeSpawner.Peer>>
  /** The `tools/call` requests each server received. */
  readonly calls: Array<{ readonly server: string; readonly params: unknown }>
  /** The same requests, as they arrive. */
  readonly arrived: Queue.Queue<{ readonly server: string; readonly params: unknown }>
}

const paramsOf = (msg: McpPeer.Message): { readonly [key: string]: unknown } => {
  const params = msg["params"]
  return Predicate.isObject(params) ? params : {}
}

export const fleet = (
  servers: Servers,
  options: Omit<ManagerOptions.ManagerOptions, "servers"> = {}
): Effect.Effect<Fleet, never, Scope.Scope> =>
  Effect.gen(function*() {
    const peers: Record<string, Array<FakeSpawner.Peer>> = {}
    const calls: Array<{ readonly server: string; readonly params: unknown }> = []
    const arrived = yield* Queue.unbounded<{ readonly server: string; readonly params: unknown }>()
    const spawner = FakeSpawner.layer((peer) => {
      const name = peer.command.command
      ;(peers[name] ??= []).push(peer)
      const tools = servers[name]?.()
      if (tools === undefined) return McpPeer.serve({ initialize: "never" })(peer)
      return McpPeer.serve({
        onRequest: (msg) =>
          Effect.sync(() => {
            if (msg.method === "tools/list") return { tools: (servers[name]?.() ?? []).map((t) => t.tool) }
            if (msg.method !== "tools/call") return undefined
            const params = paramsOf(msg)
            calls.push({ server: name, params })
            Queue.offerUnsafe(arrived, { server: name, params })
            const spec = (servers[name]?.() ?? []).find((t) => t.tool["name"] === params["name"])
            if (spec === undefined) return { content: [{ type: "text", text: "no such tool" }], isError: true }
            if (spec.hang === true) return undefined
            return spec.result?.(params["arguments"]) ??
              { content: [{ type: "text", text: `${name}:${JSON.stringify(params["arguments"])}` }] }
          })
      })(peer)
    })
    const context = yield* Layer.build(
      McpManager.layer({
        ...options,
        servers: Object.fromEntries(Object.keys(servers).map((name) => [name, { command: name }]))
      }).pipe(Layer.provide(spawner))
    )
    return { manager: Context.get(context, McpManager.McpManager), peers, calls, arrived }
  })

/** A turn of the scripted model: the parts it answers with, given what it received. */
export type Turn = (options: LanguageModel.ProviderOptions) => Array<Response.PartEncoded>

export const finish = (reason: "tool-calls" | "stop"): Response.PartEncoded => ({
  type: "finish",
  reason,
  usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } }
})

export const toolCall = (id: string, name: string, params: unknown): Response.PartEncoded => ({
  type: "tool-call",
  id,
  name,
  params
})

/** A LanguageModel that answers turn i with `turns[i]` and records every turn's options in `seen`. */
export const scripted = (turns: ReadonlyArray<Turn>) => {
  const seen: Array<LanguageModel.ProviderOptions> = []
  const layer = Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync(() => {
          seen.push(options)
          const turn = turns[seen.length - 1]
          return turn === undefined ? [{ type: "text", text: "no more turns" }, finish("stop")] : turn(options)
        }),
      streamText: () => Stream.empty
    })
  )
  return { layer, seen }
}
