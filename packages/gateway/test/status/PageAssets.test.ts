/**
 * PageAssets: the module the gateway serves is the page's sources exactly (run `pnpm --filter @mcp-fleet/gateway page`
 * after editing them), and the page keeps within its Content-Security-Policy: no inline script, style or handler, no
 * remote font, script or style, text only from the gateway.
 */
import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as PageAssets from "../../src/status/PageAssets.ts"
import * as StatusRoutes from "../../src/status/StatusRoutes.ts"

const source = (file: string) =>
  readFileSync(fileURLToPath(new URL(`../../src/status/page/${file}`, import.meta.url)), "utf8")

describe("PageAssets", () => {
  it("is the page's sources, byte for byte (else: pnpm --filter @mcp-fleet/gateway page)", () => {
    assert.strictEqual(PageAssets.html, source("index.html"))
    assert.strictEqual(PageAssets.css, source("status.css"))
    assert.strictEqual(PageAssets.js, source("status.js"))
  })

  it("no inline script, style or event handler; nothing loaded from another origin", () => {
    const scripts = [...PageAssets.html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    assert.deepStrictEqual(scripts.map((m) => [m[1]!.trim(), m[2]!.trim()]), [[
      "type=\"module\" src=\"/status.js\"",
      ""
    ]])
    assert.notMatch(PageAssets.html, /<style\b/)
    assert.notMatch(PageAssets.html, /\sstyle=/)
    assert.notMatch(PageAssets.html, /\son[a-z]+=/i)
    for (const [name, text] of [["html", PageAssets.html], ["css", PageAssets.css], ["js", PageAssets.js]] as const) {
      // The one absolute URL is SVG's namespace name, which is never fetched.
      const urls = [...text.matchAll(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}[^\s"')]*/gi)].map((m) => m[0])
      assert.deepStrictEqual(urls.filter((url) => url !== "http://www.w3.org/2000/svg"), [], name)
      assert.notMatch(text, /@import|@font-face|url\(/, name)
    }
    // The script writes text, never markup, and sets no inline style (the CSP would refuse it).
    assert.notMatch(
      PageAssets.js,
      /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\.style\b|eval\(|new Function/
    )
    assert.include(StatusRoutes.CONTENT_SECURITY_POLICY, "default-src 'self'")
    assert.include(StatusRoutes.CONTENT_SECURITY_POLICY, "frame-ancestors 'none'")
    assert.notInclude(StatusRoutes.CONTENT_SECURITY_POLICY, "unsafe-")
  })
})
