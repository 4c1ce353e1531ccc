/**
 * No Redis code loads when no Redis is configured: importing `@mcp-fleet/gateway`, or building and using its shared
 * state without a Redis URL, in a fresh process, loads neither the `redis` client, nor `effect/persistence/Redis`,
 * nor `NodeRedis`, nor the gateway's `redis/` modules. With a URL (the control) they all load.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { LoadedModules } from "@mcp-fleet/testing"
import { Effect } from "effect"
import * as Path from "node:path"

const loadedBy = (specifier: string) =>
  LoadedModules.loadedBy(specifier, { cwd: import.meta.dirname }).pipe(Effect.provide(NodeServices.layer))

/** The Redis side, by the end of its URL. */
const redisSide: ReadonlyArray<RegExp> = [
  /\/node_modules\/redis\//,
  /\/node_modules\/@redis\//,
  /\/effect\/dist\/persistence\/Redis\.js$/,
  /\/NodeRedis\.js$/,
  /\/gateway\/src\/redis\/[^/]+\.ts$/
]
const redisModules = (loaded: ReadonlyArray<string>) =>
  loaded.filter((url) => redisSide.some((pattern) => pattern.test(url)))

describe("what the gateway loads without Redis", () => {
  it.live("importing @mcp-fleet/gateway loads no Redis code", () =>
    Effect.gen(function*() {
      const loaded = yield* loadedBy("@mcp-fleet/gateway")
      assert.isTrue(loaded.some((url) => url.endsWith("/gateway/src/SharedState.ts")), "SharedState.ts was loaded")
      assert.deepStrictEqual(redisModules(loaded), [])
    }))

  it.live("building and using the shared state without a Redis URL loads no Redis code", () =>
    Effect.gen(function*() {
      const loaded = yield* loadedBy(Path.join(import.meta.dirname, "sharedInProcess.ts"))
      assert.isTrue(loaded.some((url) => url.endsWith("/gateway/src/ChangeBus.ts")), "ChangeBus.ts was loaded")
      assert.isTrue(loaded.some((url) => url.endsWith("/auth/src/TokenStore.ts")), "TokenStore.ts was loaded")
      assert.deepStrictEqual(redisModules(loaded), [])
    }))

  it.live("with a Redis URL (the control), the Redis side loads", () =>
    Effect.gen(function*() {
      const loaded = yield* loadedBy(Path.join(import.meta.dirname, "sharedRedis.ts"))
      const found = redisModules(loaded)
      for (const pattern of redisSide) {
        assert.isTrue(found.some((url) => pattern.test(url)), `${pattern} matched a loaded module`)
      }
    }))
})
