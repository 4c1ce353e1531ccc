/**
 * Fault suite, real processes: shutdown of servers that resist it, and of wrapper-started servers.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Option, Scope } from "effect"
import { exists, waitUntil } from "../support.ts"
import { closableScope, fake, grandchildPid } from "./helpers.ts"

describe("Fault: shutdown (real fake server)", () => {
  it.live("forceClose of a server started through a wrapper kills its grandchild too", () =>
    Effect.gen(function*() {
      const client = yield* fake({ modes: ["grandchild"] })
      yield* client.awaitReady
      yield* waitUntil(() => grandchildPid(client.stderrTail()) !== undefined, "grandchild pid on stderr")
      const grandchild = grandchildPid(client.stderrTail())!
      assert.isTrue(exists(grandchild))
      yield* client.forceClose
      assert.isFalse(exists(client.pid))
      assert.isFalse(exists(grandchild), "the grandchild is gone when forceClose returns")
      // The exit was observed. (Its cause is racy: forceClose also ends stdin, and this server exits with code 0 on
      // EOF, sometimes before the SIGKILL lands; either way the process and its grandchild are gone.)
      assert.isTrue(Option.isSome(client.exitInfo()))
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("a wrapper that ignores SIGTERM and EOF, with a grandchild holding stdout: close is bounded, both gone", () =>
    Effect.gen(function*() {
      const scope = yield* closableScope
      const client = yield* fake({ modes: ["ignore-sigterm", "grandchild"] }, {
        shutdownGrace: 100,
        killGrace: 200
      }).pipe(Scope.provide(scope))
      yield* client.awaitReady
      yield* waitUntil(() => grandchildPid(client.stderrTail()) !== undefined, "grandchild pid on stderr")
      const grandchild = grandchildPid(client.stderrTail())!
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(exists(client.pid))
      assert.isFalse(exists(grandchild))
      assert.isTrue(
        client.stderrTail().some((line) => line.includes("ignoring SIGTERM")),
        "SIGTERM was tried (and ignored) before SIGKILL"
      )
      assert.deepStrictEqual(Option.getOrUndefined(client.exitInfo()), { code: null, signal: "SIGKILL" })
    }).pipe(Effect.provide(NodeServices.layer)))
})
