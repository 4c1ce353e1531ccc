/**
 * Nothing of an HTTP client outlives its scope: a Node process that serves, connects (with the GET stream
 * open), calls, and closes the scope must exit on its own, with no socket or timer keeping its event loop alive.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import { ChildProcess } from "effect/process"
import * as Path from "node:path"

const script = Path.join(import.meta.dirname, "fixtures", "closeAndExit.ts")

describe("HTTP client lifetime", () => {
  it.live("the process exits by itself once the client's scope has closed", () =>
    Effect.gen(function*() {
      const handle = yield* ChildProcess.make(process.execPath, [script], { extendEnv: true })
      const out = yield* handle.stdout.pipe(Stream.decodeText(), Stream.mkString, Effect.forkScoped)
      const code = yield* handle.exitCode.pipe(Effect.timeout("20 seconds"))
      const text = yield* Fiber.join(out)
      assert.strictEqual(code, 0)
      assert.include(text, "closed")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
