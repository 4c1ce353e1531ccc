/**
 * Issue 26, item 6: `${workspaceFolder}` in `.vscode/mcp.json` is the workspace root, as VS Code means it. A real
 * layout: a project folder with `.env` at its root and `.vscode/mcp.json` starting the filesystem reference server
 * on `${workspaceFolder}`, with `envFile: "${workspaceFolder}/.env"`.
 */
import { mkdir, realpath, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { referenceServer, run, tempDir } from "./CliProcess.ts"

describe("mcp-fleet with VS Code's .vscode/mcp.json", () => {
  it.concurrent("${workspaceFolder} is the folder above .vscode: the envFile is found, the server gets that root", async (ctx) => {
    const project = await realpath(await tempDir(ctx))
    await mkdir(join(project, ".vscode"))
    await writeFile(join(project, ".env"), "# the project's variables\nLOG_LEVEL=info\n")
    await writeFile(join(project, "notes.txt"), "hello\n")
    const config = join(project, ".vscode", "mcp.json")
    // As VS Code writes it: `inputs`, `servers`, a `type`, comments.
    await writeFile(
      config,
      `{
  // The project's MCP servers.
  "inputs": [],
  "servers": {
    "filesystem": {
      "type": "stdio",
      "command": ${JSON.stringify(process.execPath)},
      "args": [${JSON.stringify(referenceServer("filesystem"))}, "\${workspaceFolder}"],
      "envFile": "\${workspaceFolder}/.env"
    }
  }
}
`
    )
    const result = await run(ctx, ["call", "filesystem", "list_allowed_directories", "--config", config])
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(project)
    expect(result.stdout).not.toContain(".vscode")
    const listed = await run(ctx, [
      "call",
      "filesystem",
      "list_directory",
      "--args",
      `{"path":"${project}"}`,
      "--config",
      config
    ])
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toContain("notes.txt")
  })
})
