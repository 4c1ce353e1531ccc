/**
 * `mcp-fleet` provides every server's base environment from its own: the variables launchers need (proxies,
 * certificate paths, XDG directories) reach the server without `inheritEnv`; others do not (issue 11, item 9).
 * The `leak-env` fake server echoes its environment in its tool errors, which the CLI prints.
 */
import { describe, expect, it } from "vitest"
import { fakeServer, run, writeConfig } from "./CliProcess.ts"

describe("mcp-fleet passes the launcher variables of its environment on to servers", () => {
  it.concurrent("proxy, certificate and XDG variables reach the server; unrelated ones do not", async (ctx) => {
    const config = await writeConfig(ctx, { leaky: fakeServer({ modes: ["leak-env"] }) })
    const result = await run(ctx, ["call", "leaky", "echo", "-c", config], {
      env: {
        AAA_UNRELATED: "must-not-reach-the-server",
        HOME: "/h",
        HTTPS_PROXY: "http://proxy.example:3128",
        // Short, so that the bounded error message still holds every variable up to XDG_*.
        PATH: "/usr/bin:/bin",
        SSL_CERT_DIR: "/etc/ssl/certs",
        XDG_CACHE_HOME: "/h/.cache",
        no_proxy: "localhost"
      }
    })
    expect(result.code).toBe(1)
    const leaked = /failed with arguments \{\}; environment (.*)$/m.exec(result.stderr)?.[1] ?? ""
    expect(leaked).toMatch(/^HOME=\/h /)
    expect(leaked).toContain("HTTPS_PROXY=http://proxy.example:3128")
    expect(leaked).toContain("SSL_CERT_DIR=/etc/ssl/certs")
    expect(leaked).toContain("XDG_CACHE_HOME=/h/.cache")
    expect(leaked).not.toContain("AAA_UNRELATED")
    expect(leaked).not.toContain("must-not-reach-the-server")
  })
})
