import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Redacted } from "effect"
import { createHash } from "node:crypto"
import { AuthorizationPrompt, AuthorizationRequest, type AuthorizationServerMetadata, Pkce } from "../src/index.ts"

const metadata: AuthorizationServerMetadata.AuthorizationServerMetadata = {
  issuer: "https://auth.example",
  authorization_endpoint: "https://auth.example/authorize?tenant=1",
  token_endpoint: "https://auth.example/token",
  code_challenge_methods_supported: ["S256"]
}

describe("PKCE", () => {
  it.effect("the RFC 7636 appendix B vector", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* Pkce.challengeOf("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
      )
    }))

  it.effect("a fresh verifier is 43 url-safe characters, its challenge its SHA-256, and never twice the same", () =>
    Effect.gen(function*() {
      const a = yield* Pkce.make
      const b = yield* Pkce.make
      const verifier = Redacted.value(a.verifier)
      assert.match(verifier, /^[A-Za-z0-9_-]{43}$/)
      assert.strictEqual(a.challenge, createHash("sha256").update(verifier).digest("base64url"))
      assert.notStrictEqual(verifier, Redacted.value(b.verifier))
      assert.notInclude(String(a.verifier), verifier)
    }))

  it.effect("S256 is required, and an absent code_challenge_methods_supported is a refusal", () =>
    Effect.gen(function*() {
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(Pkce.requireS256(metadata))))
      const { code_challenge_methods_supported: _, ...bare } = metadata
      const absent = yield* Effect.flip(Pkce.requireS256(bare))
      assert.include(absent.message, "does not advertise code_challenge_methods_supported")
      const plainOnly = yield* Effect.flip(
        Pkce.requireS256({ ...metadata, code_challenge_methods_supported: ["plain"] })
      )
      assert.include(plainOnly.message, "does not support PKCE with S256")
    }))
})

describe("AuthorizationRequest", () => {
  const callback = (fields: Partial<AuthorizationPrompt.Callback>): AuthorizationPrompt.Callback => ({
    code: Redacted.make("the-code"),
    state: "s1",
    iss: undefined,
    error: undefined,
    ...fields
  })

  it.effect("the URL carries PKCE, state, resource and scope, and keeps the endpoint's own query", () =>
    Effect.gen(function*() {
      const pkce = yield* Pkce.make
      const url = AuthorizationRequest.url({
        metadata,
        clientId: "c1",
        redirectUri: "http://127.0.0.1:1/cb",
        pkce,
        state: "s1",
        resource: "https://mcp.example/mcp",
        scope: "a b"
      })
      const q = Object.fromEntries(url.searchParams)
      assert.deepStrictEqual(q, {
        tenant: "1",
        response_type: "code",
        client_id: "c1",
        redirect_uri: "http://127.0.0.1:1/cb",
        code_challenge: pkce.challenge,
        code_challenge_method: "S256",
        state: "s1",
        resource: "https://mcp.example/mcp",
        scope: "a b"
      })
      assert.notInclude(url.href, Redacted.value(pkce.verifier))
    }))

  it.effect("state must match; iss is compared exactly and required where advertised; on a wrong iss the error is ignored", () =>
    Effect.gen(function*() {
      const ok = yield* AuthorizationRequest.validate(metadata, "s1", callback({}))
      assert.strictEqual(Redacted.value(ok), "the-code")
      const reasons = yield* Effect.forEach(
        [
          [metadata, callback({ state: "other" })],
          [metadata, callback({ iss: "https://auth.example/" })],
          [metadata, callback({ iss: "https://evil.example", error: "access_denied" })],
          [{ ...metadata, authorization_response_iss_parameter_supported: true }, callback({})],
          [metadata, callback({ error: "access_denied", code: undefined })],
          [metadata, callback({ code: undefined })]
        ] as const,
        ([m, c]) => Effect.flip(AuthorizationRequest.validate(m, "s1", c)).pipe(Effect.map((e) => e.message))
      )
      assert.deepStrictEqual(reasons, [
        "Authorization at https://auth.example failed: the response's state does not match the request.",
        "Authorization at https://auth.example failed: the response's iss \"https://auth.example/\" is not the issuer.",
        "Authorization at https://auth.example failed: the response's iss \"https://evil.example\" is not the issuer.",
        "Authorization at https://auth.example failed: the response has no iss although the server advertises it.",
        "Authorization at https://auth.example failed: the server answered error access_denied.",
        "Authorization at https://auth.example failed: the response carries no authorization code."
      ])
      const advertised = { ...metadata, authorization_response_iss_parameter_supported: true }
      const withIss = yield* AuthorizationRequest.validate(advertised, "s1", callback({ iss: "https://auth.example" }))
      assert.strictEqual(Redacted.value(withIss), "the-code")
    }))

  it("a callback read from the redirect keeps the code redacted", () => {
    const c = AuthorizationPrompt.callbackFromRedirect("http://127.0.0.1/cb?code=abc&state=s&iss=https%3A%2F%2Fa")
    assert.strictEqual(c.state, "s")
    assert.strictEqual(c.iss, "https://a")
    assert.strictEqual(c.code === undefined ? undefined : Redacted.value(c.code), "abc")
    assert.notInclude(String(c.code), "abc")
  })
})
