/**
 * Fault suite, real processes (issue 24, item 10): a server whose grandchild calls `setsid()` (`setsid-grandchild`:
 * a session and process group of its own, none of the server's pipes). The group signal cannot reach it; with
 * `NodeProcessTree.layer`, closing the client ends it all the same, on the graceful path and on `forceClose`, even
 * when it ignores SIGTERM. The test kit's leak guard sees such a grandchild too.
 *
 * Before: 1 process left after close (the grandchild, alive for an hour). After: none.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { FakeServer, LeakGuard } from "@mcp-fleet/testing"
import type { FakeServer as FakeServerTypes } from "@mcp-fleet/testing"
import * as NodeProcessTree from "@mcp-fleet/transport/NodeProcessTree"
import { Deferred, Effect, Exit, Layer, Option, Scope } from "effect"
import { readFileSync } from "node:fs"
import { exists } from "../support.ts"
import { closableScope, fake } from "./helpers.ts"

/** A process's state, process group and session from `/proc/<pid>/stat`, or `undefined` when it is gone. */
const statOf = (pid: number) => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
    return { state: fields[0]!, pgrp: Number(fields[2]), session: Number(fields[3]) }
  } catch {
    return undefined
  }
}

/** Gone, or a zombie that its new parent (init) has not reaped yet: either way, nothing runs. */
const dead = (pid: number): boolean => !exists(pid) || statOf(pid)?.state === "Z"

const withTree = Layer.provideMerge(NodeProcessTree.layer, NodeServices.layer)

/**
 * A client of the fake server with `modes`, and the pid of its setsid grandchild, read from the stderr line the
 * server writes when it has spawned it (latched on `onStderrLine`, not on time).
 */
const serverWithSetsidGrandchild = (modes: ReadonlyArray<FakeServerTypes.Mode>, scope: Scope.Scope) =>
  Effect.gen(function*() {
    const spawned = yield* Deferred.make<number>()
    const client = yield* fake({ modes: ["setsid-grandchild", ...modes] }, {
      shutdownGrace: 200,
      killGrace: 300,
      onStderrLine: (line) => {
        const match = /setsid grandchild pid=(\d+)/.exec(line)
        return match === null ? Effect.void : Deferred.succeed(spawned, Number(match[1])).pipe(Effect.asVoid)
      }
    }).pipe(Scope.provide(scope))
    yield* client.awaitReady
    const grandchild = yield* Deferred.await(spawned)
    // Always reaped, whatever the test asserts: a failed test must not leave it running for an hour.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => void (exists(grandchild) && process.kill(grandchild, "SIGKILL")))
    )
    return { client, grandchild }
  })

describe("Fault: a grandchild that called setsid (real fake server)", () => {
  it.live("outside the server's session and group, and seen by the leak guard", () =>
    Effect.gen(function*() {
      const scope = yield* closableScope
      const { client, grandchild } = yield* serverWithSetsidGrandchild([], scope)
      const server = statOf(client.pid)!
      const own = statOf(grandchild)!
      assert.notStrictEqual(own.pgrp, server.pgrp, "another process group")
      assert.notStrictEqual(own.session, server.session, "another session")
      assert.strictEqual(own.pgrp, grandchild, "it leads its own group")
      const runId = process.env[FakeServer.runIdEnvVar]
      const seen = yield* LeakGuard.scan(runId === undefined ? {} : { runId })
      assert.isTrue(seen.some((p) => p.pid === grandchild), "the leak guard lists it while it runs")
      yield* Scope.close(scope, Exit.void)
    }).pipe(Effect.scoped, Effect.provide(withTree)))

  it.live("close ends it: the server goes on EOF, the grandchild by SIGTERM; nothing is left when close returns", () =>
    Effect.gen(function*() {
      const scope = yield* closableScope
      const { client, grandchild } = yield* serverWithSetsidGrandchild([], scope)
      assert.isTrue(exists(grandchild))
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(Option.getOrUndefined(client.exitInfo()), { code: 0, signal: null })
      assert.isFalse(exists(client.pid))
      assert.isTrue(dead(grandchild), `the grandchild is dead when close returns (${statOf(grandchild)?.state})`)
    }).pipe(Effect.scoped, Effect.provide(withTree)))

  it.live("a grandchild that ignores SIGTERM too: SIGKILL after killGrace; close stays bounded", () =>
    Effect.gen(function*() {
      const scope = yield* closableScope
      const { client, grandchild } = yield* serverWithSetsidGrandchild(["ignore-sigterm"], scope)
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(exists(client.pid))
      assert.isTrue(dead(grandchild), `the grandchild is dead when close returns (${statOf(grandchild)?.state})`)
      assert.deepStrictEqual(Option.getOrUndefined(client.exitInfo()), { code: null, signal: "SIGKILL" })
    }).pipe(Effect.scoped, Effect.provide(withTree)))

  it.live("forceClose ends it at once", () =>
    Effect.gen(function*() {
      const scope = yield* closableScope
      const { client, grandchild } = yield* serverWithSetsidGrandchild(["ignore-sigterm"], scope)
      yield* client.forceClose
      assert.isFalse(exists(client.pid))
      assert.isTrue(dead(grandchild), `the grandchild is dead when forceClose returns (${statOf(grandchild)?.state})`)
    }).pipe(Effect.scoped, Effect.provide(withTree)))

  it.live("without NodeProcessTree the group signal alone cannot reach it: it outlives close", () =>
    Effect.gen(function*() {
      const scope = yield* closableScope
      const { client, grandchild } = yield* serverWithSetsidGrandchild([], scope)
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(exists(client.pid))
      assert.isTrue(exists(grandchild) && statOf(grandchild)?.state !== "Z", "still running (the finalizer ends it)")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
