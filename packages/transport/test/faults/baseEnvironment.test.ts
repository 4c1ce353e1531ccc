/**
 * The child's base environment comes from the application, never from the transport reading environment variables
 * itself (seed constraint 16; issue 11, item 9).
 */
import { assert, describe, it } from "@effect/vitest"
import { BaseEnvironment, McpClient } from "@mcp-fleet/transport"
import { Effect, Redacted } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { controlledPeer } from "../peers.ts"

const source = {
  PATH: "/usr/bin",
  HOME: "/home/u",
  NODE_EXTRA_CA_CERTS: "/etc/ca.pem",
  SSL_CERT_FILE: "/etc/cert.pem",
  SSL_CERT_DIR: "/etc/certs",
  HTTP_PROXY: "http://proxy:3128",
  HTTPS_PROXY: "http://proxy:3128",
  NO_PROXY: "localhost",
  http_proxy: "http://proxy:3128",
  https_proxy: "http://proxy:3128",
  no_proxy: "localhost",
  LC_ALL: "C.UTF-8",
  XDG_CACHE_HOME: "/home/u/.cache",
  XDG_RUNTIME_DIR: "/run/user/1",
  AWS_SECRET_ACCESS_KEY: "not for children",
  VITEST: "true",
  UNSET: undefined
}

describe("the child's base environment", () => {
  it.effect("without a BaseEnvironment the child gets exactly its env: the transport reads none itself", () =>
    Effect.gen(function*() {
      const { layer, peer } = yield* controlledPeer({})
      yield* McpClient.make({ command: "server", env: { TOKEN: "t" } }).pipe(Effect.provide(layer))
      const p = yield* peer
      assert.deepStrictEqual(p.command.options.env, { TOKEN: "t" })
      assert.strictEqual(p.command.options.extendEnv, false)
    }))

  it.effect("BaseEnvironment.layer(source) passes on the launcher variables and XDG_*, then the server's env wins", () =>
    Effect.gen(function*() {
      const { layer, peer } = yield* controlledPeer({})
      const token = Redacted.make("t")
      yield* McpClient.make({ command: "server", env: { TOKEN: token, HOME: "/override" } }).pipe(
        Effect.provide(layer),
        Effect.provide(BaseEnvironment.layer(source))
      )
      const p = yield* peer
      const { AWS_SECRET_ACCESS_KEY: _secret, UNSET: _unset, VITEST: _vitest, ...expected } = source
      assert.deepStrictEqual(p.command.options.env, { ...expected, HOME: "/override", TOKEN: token })
    }))

  it("pick keeps only the named variables and prefixes that are set", () => {
    assert.deepStrictEqual(BaseEnvironment.pick({ PATH: "/bin", X: "1", XDG_A: "a", Y: undefined }), {
      PATH: "/bin",
      XDG_A: "a"
    })
    assert.deepStrictEqual(BaseEnvironment.pick({ PATH: "/bin", X: "1" }, ["X"], []), { X: "1" })
  })

  it("the transport's source reads no environment: no process.env, no effect Config", () => {
    const dir = fileURLToPath(new URL("../../src", import.meta.url))
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"))
    assert.isAbove(files.length, 10)
    for (const file of files) {
      const text = readFileSync(join(dir, file), "utf8").replace(/\/\*\*[\s\S]*?\*\//g, "")
      assert.notMatch(text, /process\.env/, file)
      assert.notMatch(text, /from "effect\/Config"|Config\.(?:String|option|string)\(/, file)
    }
  })
})
