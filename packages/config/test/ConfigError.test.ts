import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem } from "effect"
import * as ConfigError from "../src/ConfigError.ts"
import * as McpConfig from "../src/McpConfig.ts"

const PATH = "/etc/mcp/servers.json"

const failParse = (text: string, env: Record<string, string> = {}) =>
  Effect.flip(McpConfig.parse(text, { path: PATH, env }))

describe("ConfigError", () => {
  describe("file errors (McpConfig.load)", () => {
    it.effect("ConfigFileNotFound names the path", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.makeTempDirectoryScoped()
        const path = `${dir}/missing.json`
        const error = yield* Effect.flip(McpConfig.load(path, { env: {} }))
        assert.instanceOf(error, ConfigError.ConfigFileNotFound)
        assert.strictEqual(error.message, `MCP config file ${path} does not exist.`)
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("ConfigFileUnreadable names the path and the platform's reason (a directory)", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.makeTempDirectoryScoped()
        const error = yield* Effect.flip(McpConfig.load(dir, { env: {} }))
        assert.instanceOf(error, ConfigError.ConfigFileUnreadable)
        if (error._tag !== "ConfigFileUnreadable") return
        assert.strictEqual(error.reason, "BadResource")
        assert.strictEqual(
          error.message,
          `MCP config file ${dir} could not be read: it is not a readable file (is it a directory?).`
        )
      }).pipe(Effect.provide(NodeServices.layer)))
  })

  describe("content errors (McpConfig.parse)", () => {
    it.effect("ConfigJsonInvalid gives line and column and what was expected", () =>
      Effect.gen(function*() {
        const error = yield* failParse(
          "{\n  \"mcpServers\": {\n    \"fs\": { \"command\": \"x\" }\n    \"git\": {}\n  }\n}"
        )
        assert.instanceOf(error, ConfigError.ConfigJsonInvalid)
        assert.strictEqual(
          error.message,
          `MCP config file ${PATH} is not valid JSON at line 4, column 5: expected ',' or '}' after a property value.`
        )
      }))

    it.effect("ConfigJsonInvalid where JSON.parse reports no position (a bad token) uses the scanner's", () =>
      Effect.gen(function*() {
        const error = yield* failParse("{\"mcpServers\": {\n  \"fs\": {\"command\": npx}}}")
        assert.strictEqual(
          error.message,
          `MCP config file ${PATH} is not valid JSON at line 2, column 21: expected a value (text must be in double quotes).`
        )
        const empty = yield* failParse("  \n")
        assert.strictEqual(
          empty.message,
          `MCP config file ${PATH} is not valid JSON at line 2, column 1: expected a value but the text ended.`
        )
      }))

    it.effect("ConfigSchemaInvalid gives the JSON path and what was expected", () =>
      Effect.gen(function*() {
        const cases: ReadonlyArray<readonly [string, string]> = [
          [`{"mcpServers": {"fs": {"command": "x", "args": ["a", 1]}}}`, "mcpServers.fs.args[1]: expected string"],
          [`{"mcpServers": {"fs": {"args": []}}}`, "mcpServers.fs.command: missing key"],
          [`{"mcpServers": {"fs": {"command": ""}}}`, "mcpServers.fs.command: expected a non-empty string"],
          [
            `{"mcpServers": {"my server": {"command": "x", "disabled": "yes"}}}`,
            `mcpServers["my server"].disabled: expected boolean`
          ],
          [`{"mcpServers": {"fs": {"command": "x", "env": {"K": 1}}}}`, "mcpServers.fs.env.K: expected string"],
          [
            `{"mcpServers": {"fs": {"command": "x", "requestTimeoutMs": "30000"}}}`,
            "mcpServers.fs.requestTimeoutMs: expected number"
          ],
          [
            `{"mcpServers": {"fs": {"command": "x", "requestTimeoutMs": 1e999}}}`,
            "mcpServers.fs.requestTimeoutMs: expected a finite number"
          ],
          [`{"mcpServers": {"fs": {"command": "x", "curated": "read_file"}}}`, "mcpServers.fs.curated: expected array"],
          [`{"mcpServers": {"fs": {"command": "x", "inheritEnv": 1}}}`, "mcpServers.fs.inheritEnv: expected boolean"],
          [
            `{"mcpServers": {"fs": {"command": "x", "env": {"A=B": "v"}}}}`,
            `mcpServers.fs.env["A=B"]: an environment variable name must be non-empty and contain no "=" or NUL character`
          ],
          [`{"mcpServers": {"fs": "npx fs"}}`, "mcpServers.fs: expected object"],
          [`{"mcpServers": []}`, "mcpServers: expected object"],
          [`{"servers": {"fs": {"command": 1}}}`, "servers.fs.command: expected string"],
          [`[]`, `expected a JSON object with an "mcpServers" object`],
          [`{"mcp": {}}`, `expected an "mcpServers" object (or VS Code's "servers") listing the servers`],
          [`{"mcpServers": {}, "servers": {}}`, `it has both "mcpServers" and "servers"; keep one of them`]
        ]
        for (const [text, detail] of cases) {
          const error = yield* failParse(text)
          assert.instanceOf(error, ConfigError.ConfigSchemaInvalid, text)
          assert.strictEqual(error.message, `MCP config file ${PATH} is invalid: ${detail}.`, text)
        }
      }))

    it.effect("DuplicateServerName gives both line numbers", () =>
      Effect.gen(function*() {
        const text = [
          "{",
          "  \"mcpServers\": {",
          "    \"fs\": { \"command\": \"npx\", \"args\": [\"a\"] },",
          "    \"git\": { \"command\": \"git-mcp\" },",
          "",
          "",
          "",
          "",
          "    \"fs\": { \"command\": \"npx\", \"args\": [\"b\"] }",
          "  }",
          "}"
        ].join("\n")
        const error = yield* failParse(text)
        assert.instanceOf(error, ConfigError.DuplicateServerName)
        assert.strictEqual(
          error.message,
          `MCP config file ${PATH} is invalid: server "fs" is defined twice: line 3 and line 9.`
        )
      }))

    it.effect("DuplicateServerName sees through escapes, and in VS Code's servers", () =>
      Effect.gen(function*() {
        const error = yield* failParse(
          "{\"servers\": {\n\"fs\": {\"command\": \"a\"},\n\"\\u0066s\": {\"command\": \"b\"}}}"
        )
        assert.strictEqual(
          error.message,
          `MCP config file ${PATH} is invalid: server "fs" is defined twice: line 2 and line 3.`
        )
      }))

    it.effect("DuplicateKey gives the object's path, the key and both lines", () =>
      Effect.gen(function*() {
        const inServer = yield* failParse("{\"mcpServers\": {\"fs\": {\n\"command\": \"a\",\n\"command\": \"b\"}}}")
        assert.instanceOf(inServer, ConfigError.DuplicateKey)
        assert.strictEqual(
          inServer.message,
          `MCP config file ${PATH} is invalid: key "command" is defined twice in mcpServers.fs: line 2 and line 3.`
        )
        const topLevel = yield* failParse("{\"mcpServers\": {},\n\"mcpServers\": {\"fs\": {\"command\": \"x\"}}}")
        assert.strictEqual(
          topLevel.message,
          `MCP config file ${PATH} is invalid: key "mcpServers" is defined twice at the top level: line 1 and line 2.`
        )
      }))

    it.effect("MissingEnvVar names the server, the field and the variable", () =>
      Effect.gen(function*() {
        const cases: ReadonlyArray<readonly [string, string, string]> = [
          [`{"command": "x", "env": {"API_KEY": "\${GITHUB_TOKEN}"}}`, "env.API_KEY", "GITHUB_TOKEN"],
          [`{"command": "x", "args": ["--a", "--root=\${ROOT}"]}`, "args[1]", "ROOT"],
          [`{"command": "\${BIN}/server"}`, "command", "BIN"],
          [`{"command": "x", "cwd": "\${WORKDIR}"}`, "cwd", "WORKDIR"],
          [`{"command": "x", "env": {"my key": "\${env:K}"}}`, `env["my key"]`, "K"]
        ]
        for (const [entry, field, variable] of cases) {
          const error = yield* failParse(`{"mcpServers": {"gh": ${entry}}}`, { OTHER: "set" })
          assert.instanceOf(error, ConfigError.MissingEnvVar, entry)
          assert.strictEqual(
            error.message,
            `MCP config file ${PATH}: server "gh" uses \${${variable}} in ${field}, but ${variable} is not set (set it, or write \${${variable}:-default}).`
          )
        }
      }))

    it.effect("MalformedPlaceholder names the server and the field, not the value", () =>
      Effect.gen(function*() {
        const error = yield* failParse(
          `{"mcpServers": {"pplx": {"command": "x", "env": {"KEY": "\${perplexity-key}"}}}}`
        )
        assert.instanceOf(error, ConfigError.MalformedPlaceholder)
        assert.strictEqual(
          error.message,
          `MCP config file ${PATH}: server "pplx" has a malformed placeholder in env.KEY (write \${NAME}, \${NAME:-default}, or $$ for a literal dollar).`
        )
      }))

    it.effect("PromptInputPlaceholder explains VS Code's ${input:ID} and suggests ${NAME} from the environment", () =>
      Effect.gen(function*() {
        const error = yield* failParse(
          `{"servers": {"pplx": {"command": "x", "env": {"KEY": "\${input:perplexity-key}"}}}}`
        )
        assert.instanceOf(error, ConfigError.PromptInputPlaceholder)
        assert.strictEqual(
          error.message,
          `MCP config file ${PATH}: server "pplx" uses \${input:perplexity-key} in env.KEY, a VS Code prompt input that mcp-fleet cannot ask for; write \${PERPLEXITY_KEY} and set PERPLEXITY_KEY in the environment instead.`
        )
      }))

    it.effect("checks run in order: JSON, duplicates, shape, fields, expansion", () =>
      Effect.gen(function*() {
        const dupAndRemote = `{"mcpServers": {"r": {"type": "http"}, "r": {"command": "\${NOPE}"}}}`
        assert.strictEqual((yield* failParse(dupAndRemote))._tag, "DuplicateServerName")
        const remoteAndBadField = `{"mcpServers": {"a": {"command": 1}, "r": {"type": "http"}}}`
        assert.strictEqual((yield* failParse(remoteAndBadField))._tag, "ConfigSchemaInvalid")
        const badFieldAndMissingVar = `{"mcpServers": {"a": {"command": "\${NOPE}"}, "b": {"command": 1}}}`
        assert.strictEqual((yield* failParse(badFieldAndMissingVar))._tag, "ConfigSchemaInvalid")
      }))
  })
})
