import { assert, describe, it } from "@effect/vitest"
import { AuthError } from "@mcp-fleet/auth"

describe("auth errors' kind", () => {
  it("a token endpoint that could not be reached is transient; an OAuth error needs the user", () => {
    const base = { endpoint: "https://as/token", grant: "refresh_token" as const }
    assert.strictEqual(new AuthError.TokenRequestFailed({ ...base, reason: "timed out" }).kind._tag, "Transient")
    assert.strictEqual(
      new AuthError.TokenRequestFailed({ ...base, reason: "refused", oauthError: "invalid_grant" }).kind._tag,
      "NeedsUser"
    )
  })

  it("every other authorization error needs the user or the configuration: permanent", () => {
    const errors = [
      new AuthError.DiscoveryFailed({ what: "protected resource metadata", tried: ["https://x"] }),
      new AuthError.ResourceMismatch({ expected: "a", advertised: "b" }),
      new AuthError.PkceUnsupported({ issuer: "https://as" }),
      new AuthError.RegistrationFailed({ issuer: "https://as", reason: "no endpoint" }),
      new AuthError.AuthorizationFailed({ issuer: "https://as", reason: "access_denied" }),
      new AuthError.AuthorizationRequired({ resource: "https://mcp", reason: "no token" })
    ]
    for (const error of errors) assert.notStrictEqual(error.kind._tag, "Transient", error._tag)
    assert.deepStrictEqual(errors.at(-1)!.kind, { _tag: "NeedsUser", reason: "no token" })
  })
})
