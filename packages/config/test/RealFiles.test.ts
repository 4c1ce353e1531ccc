import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Redacted } from "effect"
import { inspect } from "node:util"
import * as McpConfig from "../src/McpConfig.ts"

const PATH = "/home/ada/project/.vscode/mcp.json"

const parse = (text: string, env: Record<string, string | undefined> = {}) =>
  McpConfig.parse(text, { path: PATH, env, userHome: "/home/ada" })

const messages = (config: McpConfig.McpConfig): ReadonlyArray<string> => config.warnings.map((w) => w.message)

describe("real configuration files", () => {
  describe("mixed files: stdio and remote entries", () => {
    it.effect("remote entries are decoded apart, the stdio ones still load", () =>
      Effect.gen(function*() {
        const config = yield* parse(
          `{"mcpServers": {
  "local": { "command": "node", "args": ["server.js"] },
  "cursor-remote": { "url": "https://mcp.example.com/mcp?key=\${KEY}" },
  "vscode-http": { "type": "http", "url": "https://a.example/mcp", "headers": { "Authorization": "Bearer \${KEY}" } },
  "claude-sse": { "type": "sse", "url": "https://b.example/sse" },
  "other-http": { "type": "streamable-http", "url": "https://c.example/mcp", "disabled": true },
  "weird": { "type": "websocket", "url": "wss://d.example" }
}}`,
          { KEY: "k-secret" }
        )
        assert.deepStrictEqual(config.servers.map((s) => s.name), ["local"])
        assert.deepStrictEqual(
          config.remote.map((r) => [r.name, r.transport, r.disabled]),
          [["cursor-remote", "http", false], ["vscode-http", "http", false], ["claude-sse", "sse", false], [
            "other-http",
            "http",
            true
          ]]
        )
        const http = config.remote[1]!
        assert.strictEqual(Redacted.value(http.url), "https://a.example/mcp")
        assert.strictEqual(Redacted.value(http.headers["Authorization"]!), "Bearer k-secret")
        assert.notInclude(inspect(config, { depth: 10 }) + JSON.stringify(config), "k-secret")
        assert.deepStrictEqual(messages(config), [
          `skipping server "weird": unknown "type": "websocket" (known: "stdio", "http", "streamable-http", "sse")`
        ])
      }))
  })

  describe("JSONC", () => {
    it.effect("comments and trailing commas are accepted", () =>
      Effect.gen(function*() {
        const config = yield* parse(`// VS Code's mcp.json
{
  "servers": {
    /* the memory server */
    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory",], }, // trailing
  },
}`)
        assert.deepStrictEqual(config.servers.map((s) => [s.name, s.args]), [[
          "memory",
          ["-y", "@modelcontextprotocol/server-memory"]
        ]])
      }))

    it.effect("line numbers after comments stay those of the file", () =>
      Effect.gen(function*() {
        const text = `{
  // one
  /* two
     three */
  "servers": {
    "a": { "command": "x" },
    "a": { "command": "y" }
    "b": {}
  }
}`
        const error = yield* Effect.flip(parse(text))
        assert.strictEqual(
          error.message,
          `MCP config file ${PATH} is not valid JSON at line 8, column 5: expected ',' or '}' after a property value.`
        )
        const duplicate = yield* Effect.flip(parse(text.replace("\n    \"b\": {}", "")))
        assert.strictEqual(
          duplicate.message,
          `MCP config file ${PATH} is invalid: server "a" is defined twice: line 6 and line 7.`
        )
      }))
  })

  describe("keys mcp-fleet does not read", () => {
    it.effect("warns once per key, with a did-you-mean for near misses and the servers that carry it", () =>
      Effect.gen(function*() {
        const config = yield* parse(`{"mcpServers": {
  "a": { "command": "x", "disable": true, "autoApprove": ["read"], "Args": [] },
  "b": { "command": "y", "disable": true, "envfile": ".env", "frobnicate": 1 },
  "r": { "url": "https://r.example", "header": {} }
}}`)
        assert.isFalse(config.servers[0]!.disabled, "an unknown key changes nothing")
        assert.deepStrictEqual(messages(config), [
          `ignoring "disable" in servers "a", "b" — did you mean "disabled"?`,
          `ignoring "autoApprove" in server "a" (another host's setting; mcp-fleet does not use it)`,
          `ignoring "Args" in server "a" — did you mean "args"?`,
          `ignoring "envfile" in server "b" — did you mean "envFile"?`,
          `ignoring "frobnicate" in server "b"`,
          `ignoring "header" in server "r" — did you mean "headers"?`
        ])
      }))

    it.effect("the documented keys give no warning", () =>
      Effect.gen(function*() {
        const config = yield* parse(`{"mcpServers": {
  "a": { "type": "stdio", "command": "x", "args": [], "env": {}, "envFile": ".env", "cwd": ".", "disabled": false,
         "timeout": 60, "curated": [], "requestTimeoutMs": 1, "inheritEnv": false },
  "r": { "type": "http", "url": "u", "headers": {}, "disabled": true, "timeout": 5, "curated": [], "requestTimeoutMs": 1 }
}}`)
        assert.deepStrictEqual(config.warnings, [])
      }))
  })

  describe("timeout", () => {
    it.effect("seconds up to 3600 (Cline, Roo Code), milliseconds above (Gemini CLI); requestTimeoutMs wins", () =>
      Effect.gen(function*() {
        const config = yield* parse(`{"mcpServers": {
  "cline": { "command": "x", "timeout": 60 },
  "gemini": { "command": "x", "timeout": 600000 },
  "both": { "command": "x", "timeout": 60, "requestTimeoutMs": 5000 },
  "none": { "command": "x" }
}}`)
        assert.deepStrictEqual(config.servers.map((s) => s.requestTimeoutMs), [60_000, 600_000, 5000, undefined])
        assert.isFalse("requestTimeoutMs" in config.servers[3]!, "absent stays absent: the transport's default")
      }))
  })

  describe("paths", () => {
    it.effect("a relative command (with a /), cwd and envFile resolve against the config file's folder", () =>
      Effect.gen(function*() {
        const config = yield* parse(`{"mcpServers": {
  "rel": { "command": "./bin/server", "cwd": "../data", "envFile": ".env" },
  "sub": { "command": "tools/run.sh", "cwd": "/abs" },
  "bare": { "command": "npx", "args": ["./not-a-path-we-touch"] }
}}`)
        const [rel, sub, bare] = config.servers
        assert.strictEqual(rel!.command, "/home/ada/project/.vscode/bin/server")
        assert.strictEqual(rel!.cwd, "/home/ada/project/data")
        assert.strictEqual(rel!.envFile, "/home/ada/project/.vscode/.env")
        assert.strictEqual(sub!.command, "/home/ada/project/.vscode/tools/run.sh")
        assert.strictEqual(sub!.cwd, "/abs")
        assert.strictEqual(bare!.command, "npx", "a bare name is looked up on PATH")
        assert.deepStrictEqual(bare!.args, ["./not-a-path-we-touch"], "args are the server's business")
      }))

    it.effect("a config path without a folder keeps ./ so the command is not looked up on PATH", () =>
      Effect.gen(function*() {
        const config = yield* McpConfig.parse(`{"mcpServers": {"s": {"command": "./server.sh", "cwd": "data"}}}`, {
          path: "mcp.json",
          env: {}
        })
        assert.strictEqual(config.servers[0]!.command, "./server.sh")
        assert.strictEqual(config.servers[0]!.cwd, "./data")
      }))

    it.effect("${workspaceFolder} in .vscode/mcp.json is the workspace root (above .vscode); ${userHome} the home passed in", () =>
      Effect.gen(function*() {
        const config = yield* parse(
          `{"servers": {"s": {"command": "node", "args": ["\${workspaceFolder}/s.js", "\${userHome}/.data"]}}}`
        )
        assert.deepStrictEqual(config.servers[0]!.args, ["/home/ada/project/s.js", "/home/ada/.data"])
      }))

    it.effect("${workspaceFolder} in any other file is the file's folder", () =>
      Effect.gen(function*() {
        const text = `{"mcpServers": {"s": {"command": "node", "args": ["\${workspaceFolder}/s.js"]}}}`
        const [cursor, root] = yield* Effect.all([
          McpConfig.parse(text, { path: "/home/ada/project/.cursor/mcp.json", env: {} }),
          McpConfig.parse(text, { path: "/home/ada/project/.mcp.json", env: {} })
        ])
        assert.deepStrictEqual(cursor.servers[0]!.args, ["/home/ada/project/.cursor/s.js"])
        assert.deepStrictEqual(root.servers[0]!.args, ["/home/ada/project/s.js"])
      }))
  })

  describe("envFile (McpConfig.load)", () => {
    it.effect("reads dotenv syntax next to the config file; env wins; values are Redacted", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.makeTempDirectoryScoped()
        yield* fs.writeFileString(
          `${dir}/secrets.env`,
          "# comment\nTOKEN=from-file-secret\nQUOTED=\"a b\"\nBOTH=file\n"
        )
        yield* fs.writeFileString(
          `${dir}/mcp.json`,
          `{"mcpServers": {"s": {"command": "x", "envFile": "secrets.env", "env": {"BOTH": "env"}}}}`
        )
        const config = yield* McpConfig.load(`${dir}/mcp.json`, { env: {} })
        const env = config.servers[0]!.env
        assert.deepStrictEqual(
          Object.fromEntries(Object.entries(env).map(([k, v]) => [k, Redacted.value(v)])),
          { TOKEN: "from-file-secret", QUOTED: "a b", BOTH: "env" }
        )
        assert.notInclude(inspect(config, { depth: 10 }) + JSON.stringify(config), "from-file-secret")
        const missing = yield* Effect.flip(
          fs.writeFileString(`${dir}/bad.json`, `{"mcpServers": {"s": {"command": "x", "envFile": "nope.env"}}}`)
            .pipe(Effect.andThen(McpConfig.load(`${dir}/bad.json`, { env: {} })))
        )
        assert.strictEqual(
          missing.message,
          `MCP config file ${dir}/bad.json: server "s" has "envFile": "${dir}/nope.env", which could not be read: it does not exist.`
        )
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
  })
})
