/**
 * What `resources` and `prompts` list: for every ready server that declares the capability, its items, each
 * with the server that offers it; a server whose listing failed is named with why.
 *
 * @since 0.3.0
 */
import type { McpManager } from "@mcp-fleet/manager"
import type { McpClient } from "@mcp-fleet/transport"
import { Capabilities } from "@mcp-fleet/transport"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/**
 * One server's listing: its items, or why there are none.
 *
 * @since 0.3.0
 * @category models
 */
export type Listing<A> =
  | { readonly server: string; readonly _tag: "Listed"; readonly value: A }
  | { readonly server: string; readonly _tag: "Failed"; readonly reason: string }

/**
 * Lists with `list` on every ready server that declares `capability`, in name order.
 *
 * @since 0.3.0
 * @category listing
 */
export const collect = <A, E extends { readonly message: string }>(
  manager: McpManager.McpManager["Service"],
  capability: Capabilities.Capability,
  list: (client: McpClient.McpClient) => Effect.Effect<A, E>
): Effect.Effect<ReadonlyArray<Listing<A>>> =>
  Effect.forEach(
    manager.health().filter((h) => h.state === "ready").map((h) => h.name).sort(),
    (server) =>
      Effect.gen(function*() {
        const client = yield* Effect.option(manager.client(server))
        if (Option.isNone(client)) return []
        const session = client.value.session()
        if (Option.isNone(session) || !Capabilities.declares(session.value, capability)) return []
        const listed = yield* Effect.result(list(client.value))
        return [
          listed._tag === "Success"
            ? { server, _tag: "Listed", value: listed.success } as const
            : { server, _tag: "Failed", reason: listed.failure.message } as const
        ]
      }),
    { concurrency: "unbounded" }
  ).pipe(Effect.map((all) => all.flat()))
