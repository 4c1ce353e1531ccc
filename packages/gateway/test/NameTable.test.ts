/**
 * NameTable through its public API: the examples a reader checks by eye, then fast-check properties over
 * arbitrary fleets (hostile server and tool names, every policy, every limit): no two names collide, every name
 * maps back, nothing is dropped silently, the table does not depend on input order, and under `always` adding a
 * server renames nobody.
 */
import { assert, describe, it } from "@effect/vitest"
import { NameTable } from "@mcp-fleet/gateway"
import * as fc from "fast-check"
import { fnv1a64 } from "../src/internal/fnv.ts"

const entry = (server: string, name: string): NameTable.Entry => ({ server, name })

describe("NameTable examples", () => {
  it("always (the default) prefixes with server__ and maps back", () => {
    const table = NameTable.make([entry("memory", "read_graph"), entry("everything", "echo")])
    assert.strictEqual(table.policy, "always")
    assert.strictEqual(table.exposedName("memory", "read_graph"), "memory__read_graph")
    assert.deepStrictEqual(table.resolve("everything__echo"), entry("everything", "echo"))
    assert.deepStrictEqual(table.named.map((n) => n.exposed), ["everything__echo", "memory__read_graph"])
    assert.strictEqual(table.resolve("echo"), undefined)
  })

  it("conditional prefixes only the names several servers offer", () => {
    const table = NameTable.make(
      [entry("a", "search"), entry("b", "search"), entry("a", "only_a"), entry("b", "only_b")],
      { policy: "conditional" }
    )
    assert.deepStrictEqual(table.named.map((n) => n.exposed), ["a__search", "b__search", "only_a", "only_b"])
  })

  it("conditional: a bare name that equals another's prefixed name is namespaced itself", () => {
    const table = NameTable.make(
      [entry("x", "a__b"), entry("a", "b"), entry("c", "b")],
      { policy: "conditional" }
    )
    assert.strictEqual(table.exposedName("a", "b"), "a__b")
    assert.strictEqual(table.exposedName("c", "b"), "c__b")
    assert.strictEqual(table.exposedName("x", "a__b"), "x__a__b")
  })

  it("never: bare names; a shared one goes to the first server, the others are conflicts", () => {
    const table = NameTable.make([entry("b", "echo"), entry("a", "echo"), entry("a", "add")], { policy: "never" })
    assert.deepStrictEqual(table.named.map((n) => [n.exposed, n.server]), [["add", "a"], ["echo", "a"]])
    assert.deepStrictEqual(table.conflicts, [{ _tag: "SharedName", server: "b", name: "echo", keptBy: "a" }])
  })

  it("a name listed twice by one server is exposed once and reported", () => {
    const table = NameTable.make([entry("a", "x"), entry("a", "x"), entry("a", "x")])
    assert.strictEqual(table.named.length, 1)
    assert.deepStrictEqual(table.conflicts, [{ _tag: "Duplicate", server: "a", name: "x" }])
  })

  it("a long name is shortened under the host's limit: readable head, _, 8 hash characters", () => {
    const tool = "add_pull_request_review_comment_to_pending_review"
    const table = NameTable.make([entry("github", tool)], { maxLength: 50 })
    const exposed = table.exposedName("github", tool)!
    assert.strictEqual(exposed.length, 50)
    assert.match(exposed, /^github__add_pull_request_review_comment_t_[0-9a-z]{8}$/)
    assert.deepStrictEqual(table.resolve(exposed), entry("github", tool))
    assert.strictEqual(table.named[0]?.shortened, true)
  })

  it("characters hosts refuse are replaced and a hash keeps the names apart", () => {
    const table = NameTable.make([entry("fs", "read.file"), entry("fs", "read_file"), entry("my.srv", "x")])
    const dotted = table.exposedName("fs", "read.file")!
    assert.strictEqual(table.exposedName("fs", "read_file"), "fs__read_file")
    assert.match(dotted, /^fs__read_file_[0-9a-z]{8}$/)
    assert.match(table.exposedName("my.srv", "x")!, /^my_srv__x_[0-9a-z]{8}$/)
  })

  it("a server whose name does not split back at its first __ is not used as it is", () => {
    const alone = NameTable.make([entry("a_", "_b")]).exposedName("a_", "_b")
    assert.notStrictEqual(alone, "a____b")
    // So a server added later, whose plain name is that text, takes nothing from it.
    const table = NameTable.make([entry("a_", "_b"), entry("a", "__b")])
    assert.strictEqual(table.exposedName("a", "__b"), "a____b")
    assert.strictEqual(table.exposedName("a_", "_b"), alone)
  })

  it("reserved names are never taken", () => {
    const table = NameTable.make([entry("x", "search_tools")], { policy: "never", reserved: ["search_tools"] })
    const exposed = table.exposedName("x", "search_tools")!
    assert.notStrictEqual(exposed, "search_tools")
    assert.isTrue(NameTable.isValidName(exposed))
  })

  it("the same fleet gives the same names (a pinned figure, so a change of hash or format shows here)", () => {
    const table = NameTable.make([entry("github", "add_pull_request_review_comment_to_pending_review")], {
      maxLength: 40
    })
    assert.strictEqual(table.named[0]?.exposed, "github__add_pull_request_review_rr49yep9")
  })

  it("the hash is FNV-1a 64 (the published test vectors)", () => {
    assert.strictEqual(fnv1a64("").toString(16), "cbf29ce484222325")
    assert.strictEqual(fnv1a64("a").toString(16), "af63dc4c8601ec8c")
    assert.strictEqual(fnv1a64("foobar").toString(16), "85944171f73967e8")
  })

  it("maxLength is kept within 16..64", () => {
    assert.strictEqual(NameTable.make([], { maxLength: 3 }).maxLength, 16)
    assert.strictEqual(NameTable.make([], { maxLength: 500 }).maxLength, 64)
  })
})

// Names made to collide: separators, dots, unicode, empty, long, reserved words.
const nameArb = fc.oneof(
  fc.constantFrom(
    "",
    "_",
    "__",
    "a",
    "a_",
    "_a",
    "a__b",
    "read.file",
    "read_file",
    "search_tools",
    "日本",
    "x".repeat(70)
  ),
  fc.stringMatching(/^[a-z_]{1,12}$/),
  fc.string({ maxLength: 80 }),
  fc.string({ unit: "binary", maxLength: 20 })
)
const serverArb = fc.oneof(fc.constantFrom("a", "a_", "a__b", "my.srv", "github", ""), fc.string({ maxLength: 30 }))
const fleetArb = fc.array(fc.record({ server: serverArb, name: nameArb }), { maxLength: 60 })
const optionsArb = fc.record({
  policy: fc.constantFrom<NameTable.Policy>("always", "conditional", "never"),
  maxLength: fc.integer({ min: 1, max: 80 }),
  reserved: fc.constantFrom<ReadonlyArray<string>>([], ["search_tools", "call_tool", "fleet_status"])
})

describe("NameTable properties", () => {
  it("no two exposed names collide, each is valid, and each maps back", () => {
    fc.assert(
      fc.property(fleetArb, optionsArb, (fleet, options) => {
        const table = NameTable.make(fleet, options)
        const names = table.named.map((n) => n.exposed)
        assert.strictEqual(new Set(names).size, names.length, "two entries share an exposed name")
        for (const n of table.named) {
          assert.isTrue(NameTable.isValidName(n.exposed, table.maxLength), `invalid name ${JSON.stringify(n.exposed)}`)
          assert.isFalse(options.reserved.includes(n.exposed), `reserved name taken: ${n.exposed}`)
          assert.deepStrictEqual(table.resolve(n.exposed), { server: n.server, name: n.name })
          assert.strictEqual(table.exposedName(n.server, n.name), n.exposed)
        }
      }),
      { numRuns: 400 }
    )
  })

  it("every entry is exposed or a conflict: nothing is dropped silently", () => {
    fc.assert(
      fc.property(fleetArb, optionsArb, (fleet, options) => {
        const table = NameTable.make(fleet, options)
        for (const e of fleet) {
          const exposed = table.exposedName(e.server, e.name) !== undefined
          const conflict = table.conflicts.some((c) => c.server === e.server && c.name === e.name)
          assert.isTrue(exposed || conflict, `${JSON.stringify(e)} vanished`)
        }
      }),
      { numRuns: 300 }
    )
  })

  it("the table does not depend on the order of the entries", () => {
    fc.assert(
      fc.property(
        fleetArb.chain((f) => fc.tuple(fc.constant(f), fc.shuffledSubarray(f, { minLength: f.length }))),
        optionsArb,
        ([fleet, shuffled], options) => {
          const a = NameTable.make(fleet, options)
          const b = NameTable.make(shuffled, options)
          assert.deepStrictEqual(a.named, b.named)
          assert.deepStrictEqual(a.conflicts, b.conflicts)
        }
      ),
      { numRuns: 200 }
    )
  })

  it("always: adding a server renames none of the others' tools", () => {
    fc.assert(
      fc.property(
        fleetArb,
        serverArb,
        fc.array(nameArb, { maxLength: 10 }),
        fc.integer({ min: 16, max: 64 }),
        (fleet, added, names, maxLength) => {
          const before = NameTable.make(fleet, { maxLength })
          const after = NameTable.make([...fleet, ...names.map((name) => entry(added, name))], { maxLength })
          for (const n of before.named) {
            if (n.server === added) continue
            assert.strictEqual(after.exposedName(n.server, n.name), n.exposed, `${n.server}/${n.name} was renamed`)
          }
        }
      ),
      { numRuns: 300 }
    )
  })
})
