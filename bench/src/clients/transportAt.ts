/**
 * An adapter over a copy of `@mcp-fleet/transport`'s `src/` in a directory (the same shape as `clients/fleet.ts`),
 * for the same-run A/B of transport versions (`compareTransport.ts`, warm and cold).
 *
 * @since 0.0.0
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import type * as Transport from "@mcp-fleet/transport"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import type { ClientAdapter, ClientSession } from "../ClientAdapter.ts"

/**
 * The Node services (the child-process spawner) for every transport copy of this process.
 *
 * @since 0.0.0
 */
export const runtime = ManagedRuntime.make(NodeServices.layer)

/**
 * An adapter over the transport copy in `dir`.
 *
 * @since 0.0.0
 */
export const transportAt = async (dir: string): Promise<ClientAdapter> => {
  const transport: typeof Transport = await import(pathToFileURL(resolve(dir, "src/index.ts")).href)
  return {
    id: dir,
    label: `@mcp-fleet/transport from ${dir}`,
    modules: [],
    start: async (server): Promise<ClientSession> => {
      const scope = await Effect.runPromise(Scope.make())
      const client = await runtime.runPromise(
        Effect.gen(function*() {
          const made = yield* transport.McpClient.make({ command: server.command, args: server.args, name: "ab" })
          yield* made.awaitReady
          return made
        }).pipe(Scope.provide(scope))
      )
      return {
        pid: client.pid,
        call: (payload) =>
          Effect.runPromise(
            client.callTool("echo", { payload }).pipe(Effect.map((result) => {
              const block = result.content[0]
              return block !== undefined && typeof block["text"] === "string" ? block["text"] : ""
            }))
          ),
        listAll: () => Effect.runPromise(client.listTools().pipe(Effect.map((list) => list.tools.length))),
        close: () => Effect.runPromise(Scope.close(scope, Exit.void))
      }
    }
  }
}
