import { assert, describe, it } from "@effect/vitest"
import { AuthorizationServerMetadata, ProtectedResourceMetadata, Scopes } from "../src/index.ts"

describe("discovery URLs", () => {
  it("PRM: the challenge's URL, then the path-based well-known, then the root", () => {
    assert.deepStrictEqual(
      ProtectedResourceMetadata.candidateUrls("https://mcp.example/public/mcp?x=1", "https://meta.example/prm"),
      [
        "https://meta.example/prm",
        "https://mcp.example/.well-known/oauth-protected-resource/public/mcp",
        "https://mcp.example/.well-known/oauth-protected-resource"
      ]
    )
    assert.deepStrictEqual(ProtectedResourceMetadata.candidateUrls("https://mcp.example/", undefined), [
      "https://mcp.example/.well-known/oauth-protected-resource"
    ])
  })

  it("AS metadata: path insertion for an issuer with a path, in the spec's order", () => {
    assert.deepStrictEqual(AuthorizationServerMetadata.candidateUrls("https://auth.example/tenant1"), [
      "https://auth.example/.well-known/oauth-authorization-server/tenant1",
      "https://auth.example/.well-known/openid-configuration/tenant1",
      "https://auth.example/tenant1/.well-known/openid-configuration"
    ])
    assert.deepStrictEqual(AuthorizationServerMetadata.candidateUrls("https://auth.example"), [
      "https://auth.example/.well-known/oauth-authorization-server",
      "https://auth.example/.well-known/openid-configuration"
    ])
  })

  it("the canonical resource has no fragment, no query and no trailing slash on an empty path", () => {
    assert.strictEqual(ProtectedResourceMetadata.canonicalResource("HTTPS://MCP.Example/#x"), "https://mcp.example")
    assert.strictEqual(
      ProtectedResourceMetadata.canonicalResource("https://mcp.example/mcp?a=1"),
      "https://mcp.example/mcp"
    )
  })

  it("a PRM resource must be the server or a parent path on the same origin", () => {
    assert.isTrue(ProtectedResourceMetadata.resourceMatches("https://mcp.example/mcp", "https://mcp.example/mcp"))
    assert.isTrue(ProtectedResourceMetadata.resourceMatches("https://mcp.example/mcp", "https://mcp.example/"))
    assert.isFalse(ProtectedResourceMetadata.resourceMatches("https://mcp.example/mcp", "https://other.example/mcp"))
    assert.isFalse(ProtectedResourceMetadata.resourceMatches("https://mcp.example/mcp", "https://mcp.example/mcpx"))
    assert.isFalse(ProtectedResourceMetadata.resourceMatches("https://mcp.example/mcp", "not a url"))
  })
})

describe("Scopes", () => {
  it("the challenge's scope first, then scopes_supported, else omitted", () => {
    assert.strictEqual(Scopes.select("a  b", ["c"]), "a b")
    assert.strictEqual(Scopes.select(undefined, ["c", "d"]), "c d")
    assert.strictEqual(Scopes.select("", []), undefined)
    assert.strictEqual(Scopes.select(undefined, undefined), undefined)
  })

  it("a step-up asks for the union, in first-seen order", () => {
    assert.strictEqual(Scopes.union("a b", "b c", undefined), "a b c")
    assert.strictEqual(Scopes.union(undefined), undefined)
    assert.isTrue(Scopes.covers("a b c", "c a"))
    assert.isFalse(Scopes.covers("a", "a b"))
  })
})
