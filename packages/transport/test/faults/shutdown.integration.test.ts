/**
 * Fault suite, real processes: shutdown of servers that resist it, and of wrapper-started servers.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Option, Scope } from "effect"
import { readFileSync } from "node:fs"
import { exists, waitUntil } from "../support.ts"
import { closableScope, fake, grandchildPid } from "./helpers.ts"

/** A process's state letter from `/proc` (Linux), or `gone`; elsewhere `unknown`. */
const stateOf = (pid: number): string => {
  try {
    return /\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, "utf8"))?.[1] ?? "unknown"
  } catch (error) {
    return error instanceof Error && "code" in error && error.code === "ENOENT" ? "gone" : "unknown"
  }
}

/**
 * Dead: gone, or a zombie (`Z`) that its new parent has not reaped yet. An orphaned grandchild is reaped by init,
 * not by the client, so right after the group signal it may still be listed for a moment.
 */
const dead = (pid: number): boolean => !exists(pid) || stateOf(pid) === "Z"

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

  it.live("a server that exits on EOF leaving a grandchild that holds none of its pipes: close ends the grandchild", () =>
    Effect.gen(function*() {
      const scope = yield* closableScope
      const client = yield* fake({ modes: ["quiet-grandchild"] }, { shutdownGrace: 200, killGrace: 200 }).pipe(
        Scope.provide(scope)
      )
      yield* client.awaitReady
      yield* waitUntil(() => grandchildPid(client.stderrTail()) !== undefined, "grandchild pid on stderr")
      const grandchild = grandchildPid(client.stderrTail())!
      assert.isTrue(exists(grandchild))
      yield* Scope.close(scope, Exit.void)
      // The server itself went on EOF, unsignalled: only the signal to its group can have ended the grandchild.
      assert.deepStrictEqual(Option.getOrUndefined(client.exitInfo()), { code: 0, signal: null })
      assert.isFalse(exists(client.pid))
      assert.isTrue(dead(grandchild), `the grandchild is dead when close returns (${stateOf(grandchild)})`)
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
