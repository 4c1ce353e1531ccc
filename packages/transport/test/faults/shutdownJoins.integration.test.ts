/**
 * Fault suite, real processes: both shutdown paths join every fiber of the client (seed constraint 13; issue 11,
 * item 10), for a server that never initializes and whose grandchild holds stdout and stderr until the group dies.
 */
import { NodeServices } from "@effect/platform-node"
import { describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { waitUntil } from "../support.ts"
import { assertAllFibersDone, closableScope, fake, grandchildPid } from "./helpers.ts"

const started = (scope: Scope.Scope) =>
  Effect.gen(function*() {
    const client = yield* fake({ modes: ["no-initialize", "grandchild"] }, { shutdownGrace: 200, killGrace: 200 }).pipe(
      Scope.provide(scope)
    )
    yield* waitUntil(() => grandchildPid(client.stderrTail()) !== undefined, "grandchild pid on stderr")
    return client
  })

describe("Fault: both shutdown paths join every fiber (real fake server)", () => {
  it.live("forceClose: reader, writer, stderr, exit, initialize and deadline fibers are done when it returns", () =>
    Effect.gen(function*() {
      const client = yield* started(yield* closableScope)
      yield* client.forceClose
      assertAllFibersDone(client)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("scope close: reader, writer, stderr, exit, initialize and deadline fibers are done when it returns", () =>
    Effect.gen(function*() {
      const scope = yield* closableScope
      const client = yield* started(scope)
      yield* Scope.close(scope, Exit.void)
      assertAllFibersDone(client)
    }).pipe(Effect.provide(NodeServices.layer)))
})
