/**
 * The conformance suite's `auth/*` client scenarios this package answers, each with the `--spec-version` it
 * runs at (the suite skips a scenario outside its version window). All of them passed with `authClient.ts`
 * against @modelcontextprotocol/conformance 0.2.0-alpha.12 (see packages/auth/README.md "Conformance").
 */
export const AUTH_SCENARIOS: ReadonlyArray<readonly [scenario: string, specVersion: string]> = [
  ...[
    "metadata-default",
    "metadata-var1",
    "metadata-var2",
    "metadata-var3",
    "basic-cimd",
    "scope-from-www-authenticate",
    "scope-from-scopes-supported",
    "scope-omitted-when-undefined",
    "scope-step-up",
    "scope-retry-limit",
    "token-endpoint-auth-basic",
    "token-endpoint-auth-post",
    "token-endpoint-auth-none",
    "pre-registration"
  ].map((s) => [`auth/${s}`, "2025-11-25"] as const),
  ["auth/2025-03-26-oauth-metadata-backcompat", "2025-03-26"],
  ["auth/2025-03-26-oauth-endpoint-fallback", "2025-03-26"],
  ...[
    "resource-mismatch",
    "offline-access-scope",
    "offline-access-not-supported",
    "authorization-server-migration",
    "iss-supported",
    "iss-not-advertised",
    "iss-supported-missing",
    "iss-wrong-issuer",
    "iss-unexpected",
    "iss-normalized",
    "metadata-issuer-mismatch"
  ].map((s) => [`auth/${s}`, "2026-07-28"] as const)
]
