/**
 * The URL policy as a table: every URL a server hands the client (metadata, endpoints, the SSE endpoint) is judged
 * by `UrlPolicy.judge` against the MCP server's own URL.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { UrlPolicy } from "../src/index.ts"

const REMOTE = "https://mcp.example/tenant-a/mcp"
const LOCAL = "http://127.0.0.1:8080/mcp"
const PLAIN = "http://mcp.example/mcp"

type Row = readonly [purpose: UrlPolicy.Purpose, candidate: string, server: string, allowed: boolean, reason?: string]

const table: ReadonlyArray<Row> = [
  // HTTPS off loopback: allowed whoever names it.
  ["token endpoint", "https://as.example/token", REMOTE, true],
  ["authorization server", "https://as.example", LOCAL, true],
  ["protected resource metadata", "https://meta.example/prm?x=1", REMOTE, true],
  // The server's own origin: allowed (nothing new is reached), even a plain-HTTP one.
  ["protected resource metadata", "/.well-known/oauth-protected-resource", REMOTE, true],
  ["SSE endpoint", "/messages?sessionId=1", PLAIN, true],
  ["SSE endpoint", "http://mcp.example/messages", PLAIN, true],
  // Plain HTTP off loopback, not the server's origin: refused.
  ["token endpoint", "http://as.example/token", REMOTE, false, "it is plain HTTP off the loopback interface"],
  ["registration endpoint", "http://10.0.0.5/register", LOCAL, false, "it is plain HTTP off the loopback interface"],
  // Loopback, any scheme and port: only when the MCP server is on loopback.
  ["registration endpoint", "http://127.0.0.1:9/admin/reset-everything", LOCAL, true],
  ["registration endpoint", "http://127.0.0.2:9/register", LOCAL, true],
  ["token endpoint", "http://localhost:1234/token", "http://[::1]:8080/mcp", true],
  ["registration endpoint", "http://127.0.0.1:9/admin/reset-everything", REMOTE, false, "loopback"],
  ["registration endpoint", "https://127.0.0.1:9/register", REMOTE, false, "loopback"],
  ["token endpoint", "http://127.0.0.2/token", REMOTE, false, "loopback"],
  ["token endpoint", "http://127.1/token", REMOTE, false, "loopback"],
  ["token endpoint", "http://0x7f.0.0.1/token", REMOTE, false, "loopback"],
  ["token endpoint", "http://2130706433/token", REMOTE, false, "loopback"],
  ["token endpoint", "http://0.0.0.0:9/token", REMOTE, false, "loopback"],
  ["token endpoint", "http://0/token", REMOTE, false, "loopback"],
  ["token endpoint", "http://[::1]:9/token", REMOTE, false, "loopback"],
  ["token endpoint", "http://[::]:9/token", REMOTE, false, "loopback"],
  ["token endpoint", "http://[::ffff:127.0.0.1]:9/token", REMOTE, false, "loopback"],
  ["token endpoint", "https://localhost./token", REMOTE, false, "loopback"],
  ["token endpoint", "https://admin.localhost/token", REMOTE, false, "loopback"],
  ["protected resource metadata", "http://localhost:5000/prm", PLAIN, false, "loopback"],
  // Neither HTTP nor HTTPS, credentials, not a URL: refused.
  ["authorization endpoint", "javascript:alert(1)", REMOTE, false, "its scheme is javascript:"],
  ["token endpoint", "file:///etc/passwd", LOCAL, false, "its scheme is file:"],
  ["token endpoint", "https://user:pass@as.example/token", REMOTE, false, "credentials"],
  ["authorization server", "http://[zz/", REMOTE, false, "it is not a URL"],
  // The SSE endpoint: the server's own origin only.
  ["SSE endpoint", "https://other.example/messages", REMOTE, false, "it is not on https://mcp.example"],
  ["SSE endpoint", "http://127.0.0.1:9/messages", LOCAL, false, "it is not on http://127.0.0.1:8080"]
]

describe("UrlPolicy", () => {
  it("judges every handed URL by one rule (table)", () => {
    for (const [purpose, candidate, server, allowed, reason] of table) {
      const verdict = UrlPolicy.judge(purpose, candidate, server)
      const label = `${purpose} ${candidate} named by ${server}`
      assert.strictEqual(verdict._tag, allowed ? "Allowed" : "Refused", label)
      if (verdict._tag === "Refused" && reason !== undefined) assert.include(verdict.reason, reason, label)
    }
  })

  it("loopback hosts, after the URL parser's normalisation; other names and addresses are not", () => {
    const loopback = ["localhost", "LOCALHOST.", "a.localhost", "127.0.0.1", "127.255.0.9", "0.0.0.0", "[::1]", "[::]"]
    for (const host of loopback) assert.isTrue(UrlPolicy.isLoopback(`http://${host}/`), host)
    const remote = ["example.com", "localhost.example", "128.0.0.1", "10.0.0.1", "[::2]", "[fe80::1]", "[::ffff:a00:1]"]
    for (const host of remote) assert.isFalse(UrlPolicy.isLoopback(`http://${host}/`), host)
    assert.isFalse(UrlPolicy.isLoopback("not a url"))
  })

  it("a bearer token goes over HTTPS, or plain HTTP on loopback only", () => {
    assert.isTrue(UrlPolicy.mayCarryBearer("https://mcp.example/mcp"))
    assert.isTrue(UrlPolicy.mayCarryBearer("http://127.0.0.1:9/mcp"))
    assert.isTrue(UrlPolicy.mayCarryBearer("http://localhost:9/mcp"))
    assert.isFalse(UrlPolicy.mayCarryBearer("http://mcp.example/mcp"))
    assert.isFalse(UrlPolicy.mayCarryBearer("http://192.168.1.5:8000/mcp"))
    assert.isFalse(UrlPolicy.mayCarryBearer("ws://127.0.0.1/mcp"))
  })

  it.effect("check: a typed UrlRefused naming the purpose, the URL without its query, the server and why", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        UrlPolicy.check("registration endpoint", "http://127.0.0.1:9/admin/reset-everything?all=1", REMOTE)
      )
      assert.strictEqual(error._tag, "UrlRefused")
      assert.strictEqual(error.kind._tag, "ServerFault")
      assert.strictEqual(
        error.message,
        "The registration endpoint URL http://127.0.0.1:9/admin/reset-everything named for the MCP server " +
          "https://mcp.example/tenant-a/mcp was refused: it is on the loopback interface and the MCP server is not."
      )
      const allowed = yield* UrlPolicy.check("token endpoint", "/token", "https://as.example/x")
      assert.strictEqual(allowed.href, "https://as.example/token")
    }))
})
