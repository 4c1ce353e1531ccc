/**
 * ResourceRoutes: unique URIs as they are, shared ones kept by one server and namespaced for the others (in the
 * collisions), templates alike, and routing back of every URI the table shows or a server returns.
 */
import { assert, describe, it } from "@effect/vitest"
import { ResourceRoutes } from "@mcp-fleet/gateway"
import * as fc from "fast-check"

const resource = (server: string, uri: string) => ({ server, resource: { uri, name: uri } })
const template = (server: string, uriTemplate: string) => ({ server, template: { uriTemplate, name: uriTemplate } })

describe("ResourceRoutes", () => {
  it("a URI one server offers is shown as it is and routes to it", () => {
    const table = ResourceRoutes.make([resource("memory", "memory://graph")], [])
    assert.deepStrictEqual(table.resources.map((r) => r.resource.uri), ["memory://graph"])
    assert.deepStrictEqual(table.route("memory://graph"), { server: "memory", uri: "memory://graph" })
    assert.deepStrictEqual(table.collisions, [])
  })

  it("a shared URI: the first server keeps it, the others are namespaced, and the status says so", () => {
    const table = ResourceRoutes.make([resource("b", "file:///notes.md"), resource("a", "file:///notes.md")], [])
    assert.deepStrictEqual(table.resources.map((r) => [r.server, r.resource.uri]), [
      ["a", "file:///notes.md"],
      ["b", "fleet://server/b/file:///notes.md"]
    ])
    assert.deepStrictEqual(table.route("fleet://server/b/file:///notes.md"), { server: "b", uri: "file:///notes.md" })
    assert.deepStrictEqual(table.route("file:///notes.md"), { server: "a", uri: "file:///notes.md" })
    assert.strictEqual(
      ResourceRoutes.describe(table.collisions[0]!),
      "resource \"file:///notes.md\" is offered by a, b: a keeps it; b's is fleet://server/b/file:///notes.md."
    )
  })

  it("priority decides who keeps a shared URI", () => {
    const table = ResourceRoutes.make([resource("a", "x://1"), resource("b", "x://1")], [], { priority: ["b"] })
    assert.strictEqual(table.route("x://1")?.server, "b")
  })

  it("upstream URIs in the gateway's own fleet: scheme are always namespaced", () => {
    const table = ResourceRoutes.make([resource("evil", "fleet://status")], [])
    assert.deepStrictEqual(table.resources.map((r) => r.resource.uri), ["fleet://server/evil/fleet://status"])
    assert.strictEqual(table.route("fleet://status"), undefined)
  })

  it("templates: shared ones are namespaced; an unlisted URI routes by the most specific matching template", () => {
    const table = ResourceRoutes.make([], [
      template("fs", "file:///{path}"),
      template("docs", "file:///docs/{page}"),
      template("other", "file:///{path}")
    ])
    assert.deepStrictEqual(table.templates.map((t) => [t.server, t.template.uriTemplate]), [
      ["docs", "file:///docs/{page}"],
      ["fs", "file:///{path}"],
      ["other", "fleet://server/other/file:///{path}"]
    ])
    assert.deepStrictEqual(table.route("file:///docs/intro"), { server: "docs", uri: "file:///docs/intro" })
    assert.deepStrictEqual(table.route("file:///etc/hosts"), { server: "fs", uri: "file:///etc/hosts" })
    assert.deepStrictEqual(table.route("fleet://server/other/file:///a"), { server: "other", uri: "file:///a" })
    assert.strictEqual(table.route("http://nowhere"), undefined)
  })

  it("exposeFor: a link a server returns is readable through the gateway", () => {
    const table = ResourceRoutes.make([resource("a", "x://1"), resource("b", "x://1")], [])
    assert.strictEqual(table.exposeFor("a", "x://1"), "x://1")
    assert.strictEqual(table.exposeFor("b", "x://1"), "fleet://server/b/x://1")
    assert.strictEqual(table.exposeFor("a", "x://unlisted"), "fleet://server/a/x://unlisted")
    const single = ResourceRoutes.make([], [], { fallback: "only" })
    assert.strictEqual(single.exposeFor("only", "x://unlisted"), "x://unlisted")
  })

  it("server names with /, %, spaces survive the namespaced form; malformed ones do not route", () => {
    for (const server of ["a/b", "50%", "my server", "日本"]) {
      assert.deepStrictEqual(
        ResourceRoutes.parseNamespaced(ResourceRoutes.namespaced(server, "x://y/z")),
        { server, uri: "x://y/z" }
      )
    }
    assert.strictEqual(ResourceRoutes.parseNamespaced("fleet://server/%E0%A4%A/x://y"), undefined)
    assert.strictEqual(ResourceRoutes.parseNamespaced("fleet://server//x://y"), undefined)
  })

  it("property: every exposed URI routes back, and exposeFor round-trips any URI from any server", () => {
    const uriArb = fc.oneof(fc.constantFrom("file:///a", "fleet://status", "x://1"), fc.webUrl(), fc.string())
    const serverArb = fc.oneof(fc.constantFrom("a", "b", "c/d"), fc.string({ minLength: 1, maxLength: 8 }))
    fc.assert(
      fc.property(
        fc.array(fc.record({ server: serverArb, uri: uriArb }), { maxLength: 20 }),
        fc.array(fc.tuple(serverArb, uriArb), { maxLength: 10 }),
        (listed, returned) => {
          const table = ResourceRoutes.make(listed.map((l) => resource(l.server, l.uri)), [])
          const shown = table.resources.map((r) => r.resource.uri)
          assert.strictEqual(new Set(shown).size, shown.length, "two resources shown under one URI")
          for (const r of table.resources) {
            assert.deepStrictEqual(table.route(r.resource.uri), { server: r.server, uri: r.upstreamUri })
          }
          for (const [server, uri] of returned) {
            assert.deepStrictEqual(table.route(table.exposeFor(server, uri)), { server, uri })
          }
        }
      ),
      { numRuns: 300 }
    )
  })
})
