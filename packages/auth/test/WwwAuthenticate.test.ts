import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import { WwwAuthenticate } from "../src/index.ts"

describe("WwwAuthenticate", () => {
  it("reads resource_metadata, scope and error from a Bearer challenge", () => {
    const challenge = WwwAuthenticate.bearer(
      `Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp", scope="files:read files:write", error="insufficient_scope"`
    )
    assert.deepStrictEqual(Option.getOrThrow(challenge), {
      resourceMetadata: "https://mcp.example/.well-known/oauth-protected-resource/mcp",
      scope: "files:read files:write",
      error: "insufficient_scope"
    })
  })

  it("unquotes escapes, accepts tokens, lower-cases names, and keeps commas inside quotes", () => {
    const [challenge] = WwwAuthenticate.parse(`Bearer Realm="a \\"b\\", c", error=invalid_token`)
    assert.deepStrictEqual(challenge, { scheme: "Bearer", params: { realm: `a "b", c`, error: "invalid_token" } })
  })

  it("splits several challenges, token68 included, and finds the Bearer one whatever its case", () => {
    const header = `Basic abc123==, Newauth realm="apps", type=1, bearer scope="x"`
    assert.deepStrictEqual(WwwAuthenticate.parse(header), [
      { scheme: "Basic", params: {} },
      { scheme: "Newauth", params: { realm: "apps", type: "1" } },
      { scheme: "bearer", params: { scope: "x" } }
    ])
    assert.strictEqual(Option.getOrThrow(WwwAuthenticate.bearer(header)).scope, "x")
  })

  it("a bare Bearer, no header or no Bearer challenge", () => {
    assert.deepStrictEqual(Option.getOrThrow(WwwAuthenticate.bearer("Bearer")), {
      resourceMetadata: undefined,
      scope: undefined,
      error: undefined
    })
    assert.isTrue(Option.isNone(WwwAuthenticate.bearer(undefined)))
    assert.isTrue(Option.isNone(WwwAuthenticate.bearer(`Basic realm="x"`)))
  })

  it("malformed input never throws", () => {
    for (const header of [`Bearer scope="unterminated`, `=,,= "x"`, `Bearer ,,, error=`, "\u0000\u00ff", ""]) {
      assert.isArray(WwwAuthenticate.parse(header))
    }
    assert.strictEqual(Option.getOrThrow(WwwAuthenticate.bearer(`Bearer scope="unterminated`)).scope, "unterminated")
  })
})
