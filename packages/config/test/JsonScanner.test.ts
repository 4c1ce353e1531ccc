import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as JsonScanner from "../src/internal/JsonScanner.ts"

const jsonParsePosition = (text: string): number | "valid" | "no position" => {
  try {
    JSON.parse(text)
    return "valid"
  } catch (error) {
    const digits = error instanceof Error ? /at position (\d+)/.exec(error.message)?.[1] : undefined
    return digits === undefined ? "no position" : Number(digits)
  }
}

const scannedOf = (text: string): JsonScanner.Scanned => {
  const result = JsonScanner.scan(text)
  if (Result.isFailure(result)) assert.fail(`expected valid JSON, got: ${result.failure.reason}`)
  return result.success
}

const duplicatesOf = (text: string): ReadonlyArray<JsonScanner.DuplicateKey> => scannedOf(text).duplicates

/** The JSONC text blanked into JSON, as `ParseJson` hands it to `JSON.parse`. */
const plainOf = (text: string): string => JsonScanner.blank(text, scannedOf(text).blanks)

const issueOf = (text: string): JsonScanner.SyntaxIssue => {
  const result = JsonScanner.scan(text)
  if (Result.isSuccess(result)) assert.fail("expected a syntax issue")
  return result.failure
}

/** Writes every UTF-16 unit of `s` as a `\uXXXX` escape: the same key to JSON.parse, different bytes. */
const escapeAll = (s: string): string =>
  "\"" + Array.from({ length: s.length }, (_, i) => "\\u" + s.charCodeAt(i).toString(16).padStart(4, "0")).join("") +
  "\""

describe("JsonScanner", () => {
  describe("lineColumn", () => {
    it("counts lines at \\n (\\r\\n once) and columns from 1", () => {
      const text = "ab\ncd\r\nef"
      assert.deepStrictEqual(JsonScanner.lineColumn(text, 0), { line: 1, column: 1 })
      assert.deepStrictEqual(JsonScanner.lineColumn(text, 2), { line: 1, column: 3 })
      assert.deepStrictEqual(JsonScanner.lineColumn(text, 3), { line: 2, column: 1 })
      assert.deepStrictEqual(JsonScanner.lineColumn(text, 7), { line: 3, column: 1 })
      assert.deepStrictEqual(JsonScanner.lineColumn(text, 99), { line: 3, column: 3 })
    })
  })

  describe("duplicates", () => {
    it("reports a repeated key with both lines and the path of its object", () => {
      const text = [
        "{",
        "  \"mcpServers\": {",
        "    \"fs\": { \"command\": \"a\" },",
        "    \"git\": { \"command\": \"b\", \"env\": { \"K\": \"1\",",
        "      \"K\": \"2\" } },",
        "    \"fs\": { \"command\": \"c\" }",
        "  }",
        "}"
      ].join("\n")
      assert.deepStrictEqual(duplicatesOf(text), [
        { path: ["mcpServers", "git", "env"], key: "K", firstLine: 4, secondLine: 5 },
        { path: ["mcpServers"], key: "fs", firstLine: 3, secondLine: 6 }
      ])
    })

    it("compares decoded keys, as JSON.parse does (escapes, unicode, escaped quotes)", () => {
      assert.deepStrictEqual(duplicatesOf("{\"a\":1,\n\"\\u0061\":2}"), [
        { path: [], key: "a", firstLine: 1, secondLine: 2 }
      ])
      assert.deepStrictEqual(duplicatesOf("{\"say \\\"hi\\\"\":1,\"say \\u0022hi\\u0022\":2}"), [
        { path: [], key: "say \"hi\"", firstLine: 1, secondLine: 1 }
      ])
      assert.deepStrictEqual(duplicatesOf("{\"日本\":1,\n\n\"\\u65e5\\u672c\":2}"), [
        { path: [], key: "日本", firstLine: 1, secondLine: 3 }
      ])
      // Same text in different objects, or differing only in case, is not a duplicate.
      assert.deepStrictEqual(duplicatesOf("{\"a\":{\"x\":1},\"b\":{\"x\":1},\"A\":[{\"x\":1},{\"x\":2}]}"), [])
    })

    it("tracks array indices in the path", () => {
      assert.deepStrictEqual(duplicatesOf("[0, [1, {\"k\": 1, \"k\": 2}]]"), [
        { path: [1, 1], key: "k", firstLine: 1, secondLine: 1 }
      ])
    })

    it("counts lines through \\r\\n and whitespace-only lines", () => {
      assert.deepStrictEqual(duplicatesOf("{\r\n\"a\": 1,\r\n\r\n\t \"a\": 2\r\n}"), [
        { path: [], key: "a", firstLine: 2, secondLine: 4 }
      ])
    })

    it("survives deep nesting without a stack overflow", () => {
      const depth = 200_000
      const text = "[".repeat(depth) + "{\"k\":1,\"k\":2}" + "]".repeat(depth)
      const [duplicate] = duplicatesOf(text)
      assert.strictEqual(duplicate?.key, "k")
      assert.strictEqual(duplicate?.path.length, depth)
      assert.deepStrictEqual(issueOf("[".repeat(depth)), {
        offset: depth,
        reason: "expected a value but the text ended"
      })
    })
  })

  describe("syntax", () => {
    const cases: ReadonlyArray<readonly [string, number, string]> = [
      ["{\"a\":1,,}", 7, "expected a double-quoted property name"],
      ["{\n \"a\": 1\n \"b\": 2}", 11, "expected ',' or '}' after a property value"],
      ["{\"a\": \"never closed", 19, "unterminated string"],
      ["", 0, "expected a value but the text ended"],
      ["{\"a\":1} x", 8, "unexpected text after the end of the JSON value"],
      ["[1,2", 4, "the text ended before the array was closed"],
      ["{\"a\":\"\u0001\"}", 6, "control character inside a string (escape it)"],
      ["{\"a\": 01}", 7, "a number must not have a leading zero"],
      ["{\"a\": tru}", 6, "expected a value (text must be in double quotes)"],
      ["{\"a\": nullx}", 10, "expected ',' or '}' after a property value"],
      ["[1,,]", 3, "expected a value (object, array, string, number, true, false or null)"],
      ["{\"a\": ,}", 6, "expected a value (object, array, string, number, true, false or null)"],
      ["[,]", 1, "expected a value (object, array, string, number, true, false or null)"],
      ["{\"a\" 1}", 5, "expected ':' after a property name"],
      ["\"\\x\"", 2, "invalid escape sequence in a string"],
      ["\"\\u12G4\"", 5, "expected four hex digits after \\u"],
      ["1.", 2, "expected a digit after the decimal point"],
      ["1e+", 3, "expected a digit in the exponent"],
      ["{", 1, "expected a property name but the text ended"],
      ["{\"a\":1", 6, "the text ended before the object was closed"],
      ["'single'", 0, "expected a value (text must be in double quotes)"]
    ]
    it.each(cases)("%j fails at %i: %s", (text, offset, reason) => {
      assert.deepStrictEqual(issueOf(text), { offset, reason })
      const position = jsonParsePosition(text)
      assert.notStrictEqual(position, "valid")
      if (typeof position === "number") assert.strictEqual(position, offset)
    })

    it("accepts everything RFC 8259 allows", () => {
      const text =
        " {\"a\": [-0, 1.5e+10, 2E-3, true, false, null, \"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\", {}, []]}\t\r\n"
      assert.strictEqual(jsonParsePosition(text), "valid")
      assert.deepStrictEqual(duplicatesOf(text), [])
    })
  })

  describe("JSONC: comments and trailing commas", () => {
    it("blanks comments and trailing commas into JSON of the same length, keeping line breaks", () => {
      const text = [
        "// VS Code's mcp.json",
        "{",
        "  /* the servers",
        "     of this folder */ \"servers\": {",
        "    \"a\": { \"args\": [\"x\", \"y\",], }, // trailing commas",
        "  },",
        "}"
      ].join("\n")
      const plain = plainOf(text)
      assert.strictEqual(plain.length, text.length)
      assert.deepStrictEqual(plain.split("\n").length, text.split("\n").length)
      assert.deepStrictEqual(JSON.parse(plain), { servers: { a: { args: ["x", "y"] } } })
    })

    it("keeps comment-like text inside strings, and counts lines through comments", () => {
      const text = "{\"url\": \"http://x/*y*/\", /* one\ntwo */\n\"a\": 1, \"a\": 2}"
      assert.deepStrictEqual(JSON.parse(plainOf(text)), { url: "http://x/*y*/", a: 2 })
      assert.deepStrictEqual(duplicatesOf(text), [{ path: [], key: "a", firstLine: 3, secondLine: 3 }])
    })

    it("points at an unquoted word, also where V8 points at the string after it", () => {
      assert.deepStrictEqual(issueOf("{\n \"value\": n\"\n}"), {
        offset: 12,
        reason: "expected a value (text must be in double quotes)"
      })
    })

    it("refuses an unterminated block comment and a lone slash, at their position", () => {
      assert.deepStrictEqual(issueOf("{\n /* never closed"), { offset: 3, reason: "unterminated /* comment" })
      assert.deepStrictEqual(issueOf("{\"a\": 1 / 2}"), {
        offset: 8,
        reason: "a '/' that does not start a // or /* comment"
      })
      // A comment is not a separator: the position is that of the next member, after the comment.
      assert.deepStrictEqual(issueOf("{\"a\":1 // comment\n \"b\": 2}"), {
        offset: 19,
        reason: "expected ',' or '}' after a property value"
      })
    })
  })

  describe("properties", () => {
    it.prop("any serialized JSON value scans as valid, without duplicates", [Schema.Json], ([value]) => {
      assert.deepStrictEqual(duplicatesOf(JSON.stringify(value)), [])
      assert.deepStrictEqual(duplicatesOf(JSON.stringify(value, null, 2)), [])
    })

    it.prop(
      "agrees with JSON.parse on validity and error position after deleting one character",
      [Schema.Json, Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))],
      ([value, seed]) => {
        const full = JSON.stringify({ value }, null, 1)
        const cut = seed % full.length
        const text = full.slice(0, cut) + full.slice(cut + 1)
        const scanned = JsonScanner.scan(text)
        if (Result.isSuccess(scanned)) {
          // Valid JSONC: blanked, it is JSON (one deletion can leave a trailing comma, which JSONC allows).
          assert.strictEqual(jsonParsePosition(JsonScanner.blank(text, scanned.success.blanks)), "valid", text)
          return
        }
        const position = jsonParsePosition(text)
        assert.notStrictEqual(position, "valid", text)
        // One deliberate difference: for an unquoted word followed by a string (`"a": n"x"`), V8 points at the
        // string; the scanner points at the word, which is what the person has to quote.
        const unquotedWord = scanned.failure.reason === "expected a value (text must be in double quotes)"
        // The other: JSON refuses a trailing comma (`null,\n }`) where JSONC accepts it, so when that is where
        // JSON.parse stops, the scanner's error (there is one: the text is invalid) lies further on.
        const trailingComma = typeof position === "number" && /[}\]]/.test(text[position] ?? "") &&
          text.slice(0, position).trimEnd().endsWith(",")
        if (typeof position === "number" && trailingComma) {
          assert.isAbove(scanned.failure.offset, position, text)
        } else if (typeof position === "number" && !unquotedWord) {
          assert.strictEqual(scanned.failure.offset, position, text)
        }
      },
      { arbitrary: { runs: 1000 } }
    )

    it("a deletion that leaves a trailing comma before another error: JSONC reads past the comma (seen in a run)", () => {
      const text = "{\n \"value\": {\n  \" !,H)3cy5~\": null,\n  }/X<KM4-2h\": []\n }\n}"
      const scanned = JsonScanner.scan(text)
      assert.isTrue(Result.isFailure(scanned))
      if (Result.isFailure(scanned)) assert.strictEqual(scanned.failure.offset, 39)
      assert.strictEqual(jsonParsePosition(text), 38)
    })

    it.prop("finds a key written twice in different spellings", [Schema.String, Schema.Json], ([key, value]) => {
      const text = `{${JSON.stringify(key)}: ${JSON.stringify(value)},\n${escapeAll(key)}: 1}`
      assert.deepStrictEqual(duplicatesOf(text), [{ path: [], key, firstLine: 1, secondLine: 2 }])
    })
  })
})
