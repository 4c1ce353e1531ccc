/**
 * What the CLI loads before it runs a command: its entry modules (`Main`, the platform's services and runtime)
 * must not import `node:http`, whose ES module facade loads undici (about 40 ms of CPU and 12 MB of memory for
 * every command). `auth login` imports it when it opens its loopback listener. Nor any Redis code: `serve --redis`
 * imports it (through `SharedState.layer`) when it is given a URL.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { LoadedModules } from "@mcp-fleet/testing"
import { Effect } from "effect"
import * as Path from "node:path"

const main = Path.join(import.meta.dirname, "..", "src", "Main.ts")

describe("what the CLI imports", () => {
  it.live("Main loads no node:http", () =>
    Effect.gen(function*() {
      const loaded = yield* LoadedModules.loadedBy(main, { cwd: import.meta.dirname })
      // The hook saw the import itself (so an empty list cannot pass).
      assert.isTrue(loaded.some((url) => url.endsWith("/src/commands/ToolsCommand.ts")), "ToolsCommand.ts was loaded")
      assert.isTrue(loaded.some((url) => url.endsWith("/src/LoopbackPrompt.ts")), "LoopbackPrompt.ts was loaded")
      assert.deepStrictEqual(loaded.filter((url) => url === "node:http" || url === "node:https"), [])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("Main loads no Redis code: `serve` imports it only for --redis", () =>
    Effect.gen(function*() {
      const loaded = yield* LoadedModules.loadedBy(main, { cwd: import.meta.dirname })
      assert.isTrue(loaded.some((url) => url.endsWith("/src/ServeShared.ts")), "ServeShared.ts was loaded")
      const redis = [
        /\/node_modules\/redis\//,
        /\/node_modules\/@redis\//,
        /\/effect\/dist\/persistence\/Redis\.js$/,
        /\/NodeRedis\.js$/,
        /\/gateway\/src\/redis\/[^/]+\.ts$/
      ]
      assert.deepStrictEqual(loaded.filter((url) => redis.some((pattern) => pattern.test(url))), [])
    }).pipe(Effect.provide(NodeServices.layer)))
})
