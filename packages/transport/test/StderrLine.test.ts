/**
 * Issue 26, item 7: the stderr line that explains a failure, rather than merely the last one.
 */
import { assert, describe, it } from "@effect/vitest"
import { StderrLine } from "@mcp-fleet/transport"

const npm404 = [
  "npm error code E404",
  "npm error 404 Not Found - GET https://registry.npmjs.org/@acme%2fnope",
  "npm error 404",
  "npm error 404 tarball, folder, http url, or git url.",
  "npm error A complete log of this run can be found in: /home/me/.npm/_logs/debug-0.log"
]

describe("StderrLine.informative", () => {
  it("prefers an error line with a status and its reason phrase over npm's footer and the lines around it", () => {
    assert.strictEqual(StderrLine.informative(npm404), npm404[1])
    assert.isTrue(StderrLine.isPackageNotFound(npm404))
  })

  it("takes an error line with a code when no status is given", () => {
    const lines = ["starting", "Error: spawn uvx ENOENT", "at ChildProcess._handle.onexit", "done"]
    assert.strictEqual(StderrLine.informative(lines), "Error: spawn uvx ENOENT")
    assert.isFalse(StderrLine.isPackageNotFound(lines))
  })

  it("otherwise the last line that is not the footer; nothing for no lines", () => {
    assert.strictEqual(
      StderrLine.informative(["Traceback (most recent call last):", "ModuleNotFoundError: No module named 'x'"]),
      "ModuleNotFoundError: No module named 'x'"
    )
    assert.strictEqual(StderrLine.informative(["boom", npm404[4]!]), "boom")
    assert.strictEqual(StderrLine.informative([npm404[4]!]), npm404[4])
    assert.strictEqual(StderrLine.informative([]), undefined)
  })
})
