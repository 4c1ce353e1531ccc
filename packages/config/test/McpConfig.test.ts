import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, PlatformError, Redacted } from "effect"
import { inspect } from "node:util"
import * as McpConfig from "../src/McpConfig.ts"

const PATH = "/home/ada/.config/mcp.json"

const parse = (text: string, env: Record<string, string | undefined> = {}) => McpConfig.parse(text, { path: PATH, env })

const byName = (config: McpConfig.McpConfig, name: string): McpConfig.ServerEntry => {
  const entry = config.servers.find((server) => server.name === name)
  if (entry === undefined) return assert.fail(`no server ${JSON.stringify(name)}`)
  return entry
}

const envValues = (entry: McpConfig.ServerEntry): Record<string, string> =>
  Object.fromEntries(Object.entries(entry.env).map(([key, value]) => [key, Redacted.value(value)]))

describe("McpConfig.parse", () => {
  describe("host flavours", () => {
    it.effect("Claude Desktop: mcpServers next to the app's own settings", () =>
      Effect.gen(function*() {
        const text = `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/ada/Desktop", "/Users/ada/Downloads"]
    },
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_example" }
    }
  }
}`
        const config = yield* parse(text)
        assert.strictEqual(config.path, PATH)
        assert.deepStrictEqual(config.servers.map((s) => s.name), ["filesystem", "github"])
        const fs = byName(config, "filesystem")
        assert.deepStrictEqual(
          { ...fs, env: envValues(fs) },
          {
            name: "filesystem",
            command: "npx",
            args: ["-y", "@modelcontextprotocol/server-filesystem", "/Users/ada/Desktop", "/Users/ada/Downloads"],
            env: {},
            disabled: false,
            curated: [],
            inheritEnv: false
          }
        )
        assert.deepStrictEqual(envValues(byName(config, "github")), { GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_example" })
      }))

    it.effect("Cursor: type stdio, ${env:NAME} interpolation, and host fields of its own", () =>
      Effect.gen(function*() {
        const text = `{
  "mcpServers": {
    "memory": {
      "type": "stdio",
      "command": "node",
      "args": ["\${env:HOME}/mcp/memory/dist/index.js"],
      "env": { "MEMORY_FILE_PATH": "\${env:HOME}/.memory.json" },
      "autoApprove": ["read_graph"],
      "timeout": 60
    }
  }
}`
        const memory = byName(yield* parse(text, { HOME: "/home/ada" }), "memory")
        assert.strictEqual(memory.command, "node")
        assert.deepStrictEqual(memory.args, ["/home/ada/mcp/memory/dist/index.js"])
        assert.deepStrictEqual(envValues(memory), { MEMORY_FILE_PATH: "/home/ada/.memory.json" })
        assert.isFalse("autoApprove" in memory, "other hosts' fields are tolerated and dropped")
        assert.isFalse("timeout" in memory)
        assert.isFalse("type" in memory)
      }))

    it.effect("VS Code: the top-level key is servers, next to inputs", () =>
      Effect.gen(function*() {
        const text = `{
  "inputs": [{ "type": "promptString", "id": "perplexity-key", "description": "API key", "password": true }],
  "servers": {
    "thinking": {
      "type": "stdio",
      "command": "node",
      "args": ["/opt/mcp/sequential-thinking/dist/index.js"],
      "env": { "DISABLE_THOUGHT_LOGGING": "true" }
    }
  }
}`
        const config = yield* parse(text)
        assert.deepStrictEqual(config.servers.map((s) => s.name), ["thinking"])
        assert.deepStrictEqual(envValues(byName(config, "thinking")), { DISABLE_THOUGHT_LOGGING: "true" })
      }))

    it.effect("our own fields: curated, requestTimeoutMs (untouched), inheritEnv, cwd, disabled", () =>
      Effect.gen(function*() {
        const text = `{
  "mcpServers": {
    "a": { "command": "a", "cwd": "/srv/a", "disabled": true, "curated": ["read_file", "list_dir"],
           "requestTimeoutMs": 120000, "inheritEnv": true },
    "zero": { "command": "z", "requestTimeoutMs": 0 },
    "negative": { "command": "n", "requestTimeoutMs": -5 },
    "plain": { "command": "p" }
  }
}`
        const config = yield* parse(text)
        const a = byName(config, "a")
        assert.strictEqual(a.cwd, "/srv/a")
        assert.isTrue(a.disabled)
        assert.deepStrictEqual(a.curated, ["read_file", "list_dir"])
        assert.strictEqual(a.requestTimeoutMs, 120000)
        assert.isTrue(a.inheritEnv)
        assert.strictEqual(byName(config, "zero").requestTimeoutMs, 0, "no default of ours replaces 0")
        assert.strictEqual(byName(config, "negative").requestTimeoutMs, -5)
        const plain = byName(config, "plain")
        assert.isFalse("requestTimeoutMs" in plain, "absent stays absent")
        assert.isFalse("cwd" in plain)
        assert.isFalse(plain.inheritEnv)
        assert.isFalse(plain.disabled)
      }))

    it.effect("an empty server list is a config with no servers", () =>
      Effect.gen(function*() {
        assert.deepStrictEqual((yield* parse("{\"mcpServers\": {}}")).servers, [])
      }))
  })

  describe("expansion", () => {
    it.effect("expands command, cwd, args and env values against the env argument", () =>
      Effect.gen(function*() {
        const text = `{"mcpServers": {"s": {
  "command": "\${NODE_BIN:-node}",
  "cwd": "\${HOME}/work",
  "args": ["--root=\${HOME}", "--price=$$5", "$HOME"],
  "env": { "API_KEY": "\${SECRET_KEY}", "MODE": "\${MODE:-dev}" }
}}}`
        const s = byName(yield* parse(text, { HOME: "/home/ada", SECRET_KEY: "k-123" }), "s")
        assert.strictEqual(s.command, "node")
        assert.strictEqual(s.cwd, "/home/ada/work")
        assert.deepStrictEqual(s.args, ["--root=/home/ada", "--price=$5", "$HOME"])
        assert.deepStrictEqual(envValues(s), { API_KEY: "k-123", MODE: "dev" })
      }))

    it.effect("does not expand server names, curated names or other keys", () =>
      Effect.gen(function*() {
        const text = `{"mcpServers": {"\${NAME}": {"command": "c", "curated": ["\${TOOL}"]}}}`
        const config = yield* parse(text, { NAME: "n", TOOL: "t" })
        const entry = byName(config, "${NAME}")
        assert.deepStrictEqual(entry.curated, ["${TOOL}"])
      }))

    it.effect("reads nothing from process.env", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(parse(`{"mcpServers": {"s": {"command": "\${PATH}"}}}`, {}))
        assert.strictEqual(error._tag, "MissingEnvVar")
      }))
  })

  describe("redaction", () => {
    const SECRET = "hunter2-TOP-SECRET"
    const text = `{"mcpServers": {"github": {"command": "gh-mcp", "env": {
  "GITHUB_TOKEN": "${SECRET}",
  "FROM_ENV": "\${REAL_TOKEN}"
}}}}`

    it.effect("env values are Redacted: String, JSON and inspect of the config never show them", () =>
      Effect.gen(function*() {
        const config = yield* parse(text, { REAL_TOKEN: `${SECRET}-2` })
        const github = byName(config, "github")
        for (const rendering of [String(config), JSON.stringify(config), inspect(config, { depth: null })]) {
          assert.notInclude(rendering, SECRET)
        }
        assert.strictEqual(String(github.env["GITHUB_TOKEN"]), "<redacted:GITHUB_TOKEN>")
        assert.strictEqual(
          JSON.stringify(github.env),
          "{\"GITHUB_TOKEN\":\"<redacted:GITHUB_TOKEN>\",\"FROM_ENV\":\"<redacted:FROM_ENV>\"}"
        )
        assert.deepStrictEqual(envValues(github), { GITHUB_TOKEN: SECRET, FROM_ENV: `${SECRET}-2` })
      }))

    const failures: ReadonlyArray<readonly [string, string, string]> = [
      [
        "invalid JSON right after a secret",
        `{"mcpServers": {"s": {"command": "c", "env": {"K": "${SECRET}" x}}}}`,
        "ConfigJsonInvalid"
      ],
      [
        "a secret without quotes (JSON.parse's own message would quote it)",
        `{"mcpServers": {"s": {"command": "c", "env": {"K": ${SECRET}}}}}`,
        "ConfigJsonInvalid"
      ],
      ["an unterminated secret", `{"mcpServers": {"s": {"command": "c", "env": {"K": "${SECRET}`, "ConfigJsonInvalid"],
      [
        "a default holding a secret",
        `{"mcpServers": {"s": {"command": "c", "env": {"K": "\${UNSET}\${NOPE:-${SECRET}}"}}}}`,
        "MissingEnvVar"
      ],
      [
        "a malformed placeholder next to a secret",
        `{"mcpServers": {"s": {"command": "c", "env": {"K": "${SECRET}\${oops"}}}}`,
        "MalformedPlaceholder"
      ],
      [
        "a schema error beside a secret",
        `{"mcpServers": {"s": {"command": "c", "env": {"K": "${SECRET}"}, "args": [1]}}}`,
        "ConfigSchemaInvalid"
      ],
      [
        "a duplicate env key holding secrets",
        `{"mcpServers": {"s": {"command": "c", "env": {"K": "${SECRET}", "K": "${SECRET}"}}}}`,
        "DuplicateKey"
      ],
      [
        "a secret passed as a non-string",
        `{"mcpServers": {"s": {"command": "c", "env": {"K": ["${SECRET}"]}}}}`,
        "ConfigSchemaInvalid"
      ]
    ]
    it.effect.each(failures)("errors never show an env value: %s", ([_, bad, tag]) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(parse(bad, { SECRET_VAR: SECRET }))
        assert.strictEqual(error._tag, tag)
        for (
          const rendering of [error.message, String(error), JSON.stringify(error), inspect(error, { depth: null })]
        ) {
          assert.notInclude(rendering, SECRET)
        }
      }))
  })

  describe("edge cases", () => {
    it.effect("unicode and escaped quotes in server names and values", () =>
      Effect.gen(function*() {
        const text = `{"mcpServers": {
  "日本語-サーバー": {"command": "ツール", "args": ["é\\u00e9", "emoji 🚀", "tab\\there"]},
  "say \\"hi\\"": {"command": "echo", "args": ["\\"quoted\\""]},
  "back\\\\slash": {"command": "b"}
}}`
        const config = yield* parse(text)
        assert.deepStrictEqual(config.servers.map((s) => s.name), ["日本語-サーバー", "say \"hi\"", "back\\slash"])
        assert.deepStrictEqual(byName(config, "日本語-サーバー").args, ["éé", "emoji 🚀", "tab\there"])
        assert.deepStrictEqual(byName(config, "say \"hi\"").args, ["\"quoted\""])
      }))

    it.effect("nested unknown objects anywhere are tolerated", () =>
      Effect.gen(function*() {
        const text = `{"theme": {"colors": {"a": [1, {"b": null}]}},
 "mcpServers": {"s": {"command": "c", "x-host": {"deep": {"deeper": [{"k": true}]}}}}}`
        const s = byName(yield* parse(text), "s")
        assert.strictEqual(s.command, "c")
      }))

    it.effect("a byte-order mark and CRLF line endings are accepted; positions stay those of the file", () =>
      Effect.gen(function*() {
        const config = yield* parse("\uFEFF{\r\n\"mcpServers\": {\"s\": {\"command\": \"c\"}}\r\n}\r\n")
        assert.strictEqual(config.servers.length, 1)
        const error = yield* Effect.flip(
          parse("\uFEFF{\r\n\"mcpServers\": {\"s\": {\"command\": \"c\"}},\r\n\"s\": 1 x}")
        )
        assert.strictEqual(
          error.message,
          `MCP config file ${PATH} is not valid JSON at line 3, column 8: expected ',' or '}' after a property value.`
        )
      }))

    it.effect("a server called __proto__ is an ordinary name", () =>
      Effect.gen(function*() {
        const config = yield* parse(`{"mcpServers": {"__proto__": {"command": "p", "env": {"__proto__": "v"}}}}`)
        const entry = byName(config, "__proto__")
        assert.strictEqual(entry.command, "p")
        assert.deepStrictEqual(Object.keys(entry.env), ["__proto__"])
        assert.deepStrictEqual(envValues(entry), { ["__proto__"]: "v" })
      }))

    it.effect("servers come in the order of the object's keys", () =>
      Effect.gen(function*() {
        const config = yield* parse(
          `{"mcpServers": {"b": {"command": "b"}, "a": {"command": "a"}, "c": {"command": "c"}}}`
        )
        assert.deepStrictEqual(config.servers.map((s) => s.name), ["b", "a", "c"])
      }))
  })
})

describe("McpConfig.load", () => {
  it.effect("reads a file through FileSystem and decodes it with the env passed in", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const path = `${dir}/claude_desktop_config.json`
      yield* fs.writeFileString(
        path,
        `{"mcpServers": {"memory": {"command": "node", "args": ["\${ROOT}/memory.js"], "env": {"F": "\${ROOT}/m.json"}}}}`
      )
      const config = yield* McpConfig.load(path, { env: { ROOT: "/opt/mcp" } })
      assert.strictEqual(config.path, path)
      const memory = byName(config, "memory")
      assert.deepStrictEqual(memory.args, ["/opt/mcp/memory.js"])
      assert.deepStrictEqual(envValues(memory), { F: "/opt/mcp/m.json" })
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("errors from the content carry the file's path", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const path = `${dir}/mcp.json`
      yield* fs.writeFileString(path, "{\"mcpServers\": {\"a\": {\"command\": \"x\"},\n\"a\": {\"command\": \"y\"}}}")
      const error = yield* Effect.flip(McpConfig.load(path, { env: {} }))
      assert.strictEqual(
        error.message,
        `MCP config file ${path} is invalid: server "a" is defined twice: line 1 and line 2.`
      )
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("a read failure other than NotFound is ConfigFileUnreadable with the platform's reason", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(McpConfig.load("/secret/mcp.json", { env: {} }))
      assert.strictEqual(error._tag, "ConfigFileUnreadable")
      assert.strictEqual(error.message, "MCP config file /secret/mcp.json could not be read: permission denied.")
    }).pipe(Effect.provide(FileSystem.layerNoop({
      readFileString: (path) =>
        Effect.fail(PlatformError.systemError({
          _tag: "PermissionDenied",
          module: "FileSystem",
          method: "readFileString",
          pathOrDescriptor: path
        }))
    }))))
})
