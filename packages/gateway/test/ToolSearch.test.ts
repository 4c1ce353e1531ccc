/**
 * ToolSearch: ranking over names, titles, descriptions and argument names; exact names first; deterministic
 * ties; the two tools' definitions and argument decoding.
 */
import { assert, describe, it } from "@effect/vitest"
import { GatewayError, ToolSearch } from "@mcp-fleet/gateway"
import type { Tool } from "@mcp-fleet/transport"
import { Effect } from "effect"

const doc = (
  server: string,
  name: string,
  description: string,
  args: ReadonlyArray<string> = [],
  title?: string
): ToolSearch.Document => ({
  name: `${server}__${name}`,
  server,
  tool: {
    name,
    description,
    ...(title !== undefined ? { title } : {}),
    inputSchema: { type: "object", properties: Object.fromEntries(args.map((a) => [a, { type: "string" }])) }
  } satisfies Tool.DiscoveredTool
})

const docs = [
  doc("filesystem", "read_text_file", "Read the complete contents of a file from the file system as text.", ["path"]),
  doc("filesystem", "write_file", "Create a new file or completely overwrite an existing file with new content.", [
    "path",
    "content"
  ]),
  doc("filesystem", "list_directory", "Get a detailed listing of all files and directories in a specified path.", [
    "path"
  ]),
  doc("memory", "create_entities", "Create multiple new entities in the knowledge graph", ["entities"]),
  doc("memory", "search_nodes", "Search for nodes in the knowledge graph based on a query", ["query"]),
  doc("everything", "echo", "Echoes back the input", ["message"]),
  doc("everything", "getTinyImage", "Returns the MCP_TINY_IMAGE", [], "Tiny image"),
  doc("github", "add_issue_comment", "Add a comment to an existing issue", ["owner", "repo", "issue_number", "body"])
]

const names = (hits: ReadonlyArray<ToolSearch.Hit>) => hits.map((h) => h.name)

describe("ToolSearch ranking", () => {
  const index = ToolSearch.make(docs)

  it("words of the description and the name find the tool", () => {
    assert.strictEqual(names(index.search("read a file"))[0], "filesystem__read_text_file")
    assert.strictEqual(names(index.search("knowledge graph entities"))[0], "memory__create_entities")
    assert.strictEqual(names(index.search("list directories"))[0], "filesystem__list_directory")
  })

  it("argument names count: words found only there find the tool", () => {
    assert.deepStrictEqual(names(index.search("owner")), ["github__add_issue_comment"])
  })

  it("camelCase names are split; prefixes and one typo still match", () => {
    const shop = ToolSearch.make([doc("shop", "listAllWidgets", "Enumerates the stock.")])
    assert.deepStrictEqual(names(shop.search("widgets")), ["shop__listAllWidgets"])
    assert.strictEqual(names(index.search("tiny image"))[0], "everything__getTinyImage")
    assert.strictEqual(names(index.search("direc"))[0], "filesystem__list_directory")
    assert.strictEqual(names(index.search("knowlege"))[0]?.startsWith("memory__"), true)
  })

  it("an exact name comes first, exposed or upstream, even where BM25 ranks another higher", () => {
    const crowded = ToolSearch.make([
      doc("a", "search", "Looks things up."),
      doc("b", "search_search", "Search, search and search: search everything.", ["search"])
    ])
    assert.deepStrictEqual(names(crowded.search("search")), ["a__search", "b__search_search"])
    assert.deepStrictEqual(names(crowded.search("a__search")), ["a__search", "b__search_search"])
    assert.strictEqual(names(index.search("echo"))[0], "everything__echo")
    assert.strictEqual(names(index.search("memory__search_nodes"))[0], "memory__search_nodes")
  })

  it("server and limit narrow the hits; no searchable term gives none", () => {
    assert.deepStrictEqual(
      index.search("file", { server: "memory" }).every((h) => h.server === "memory"),
      true
    )
    assert.strictEqual(index.search("file", { limit: 1 }).length, 1)
    assert.deepStrictEqual(index.search("the of and"), [])
    assert.deepStrictEqual(index.search("zzzzqqq"), [])
  })

  it("equal scores are in the order of exposed names", () => {
    const twins = [doc("b", "dup", "Same words."), doc("a", "dup", "Same words."), doc("c", "dup", "Same words.")]
    assert.deepStrictEqual(names(ToolSearch.make(twins).search("same words")), ["a__dup", "b__dup", "c__dup"])
  })

  it("the same index and query give the same list, whatever the order of the documents", () => {
    const reversed = ToolSearch.make([...docs].reverse())
    for (const query of ["file", "graph", "create", "comment issue", "e"]) {
      assert.deepStrictEqual(names(reversed.search(query, { limit: 50 })), names(index.search(query, { limit: 50 })))
    }
  })
})

describe("ToolSearch tools", () => {
  it("the definitions' input schemas come from the argument Schemas", () => {
    const search = ToolSearch.searchToolsDefinition.inputSchema
    assert.strictEqual(search["type"], "object")
    assert.deepStrictEqual(Object.keys(Object(search["properties"])).sort(), ["limit", "query", "server"])
    assert.deepStrictEqual(search["required"], ["query"])
    const call = ToolSearch.callToolDefinition.inputSchema
    assert.deepStrictEqual(Object.keys(Object(call["properties"])).sort(), ["arguments", "name"])
    assert.deepStrictEqual(call["required"], ["name"])
    assert.strictEqual(ToolSearch.searchToolsDefinition.annotations?.readOnlyHint, true)
    assert.strictEqual(ToolSearch.callToolDefinition.annotations, undefined)
  })

  it.effect("arguments decode, or fail typed with the tool's name", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* ToolSearch.decodeSearchArguments({ query: "x", limit: 3 }), {
        query: "x",
        limit: 3
      })
      assert.deepStrictEqual(yield* ToolSearch.decodeCallArguments({ name: "a__b", arguments: { n: 1 } }), {
        name: "a__b",
        arguments: { n: 1 }
      })
      const bad = yield* Effect.flip(ToolSearch.decodeSearchArguments({ query: "", limit: 500 }))
      assert.instanceOf(bad, GatewayError.InvalidArguments)
      assert.match(bad.message, /^Invalid arguments for search_tools: /)
      const extra = yield* Effect.flip(ToolSearch.decodeCallArguments({ name: "x", args: {} }))
      assert.match(extra.message, /call_tool/)
    }))

  it("render gives each hit under its exposed name with its whole input schema", () => {
    const rendered = ToolSearch.render(ToolSearch.make(docs).search("echo", { limit: 1 }))
    assert.deepStrictEqual(rendered.structuredContent.tools, [{
      name: "everything__echo",
      server: "everything",
      description: "Echoes back the input",
      inputSchema: { type: "object", properties: { message: { type: "string" } } }
    }])
    assert.deepStrictEqual(JSON.parse(rendered.content[0]!.text), rendered.structuredContent.tools)
    assert.match(ToolSearch.render([]).content[0]!.text, /No tool matches/)
  })
})
