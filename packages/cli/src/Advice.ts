/**
 * What to tell a person about a server that is not ready, from the facts: a command that cannot be spawned
 * (`command "x" was not found on PATH`), a server that crashes at every start (`crashed 3 times (exit code 1)`,
 * with the stderr lines that explain it — with `npx` the explanation is several lines above the last), one still
 * starting (with its stderr, if it wrote any), a disabled one.
 *
 * @since 0.1.0
 */
import type { McpConfig } from "@mcp-fleet/config"
import type { ServerHealth } from "@mcp-fleet/manager"
import { StatusText } from "@mcp-fleet/manager"
import { quote } from "./Diagnostics.ts"

/**
 * How many stderr lines an explanation quotes.
 *
 * @since 0.1.0
 * @category constants
 */
export const QUOTED_LINES = 8

const SPAWN_FAILURE = /could not be started \(.*?\): (NotFound|PermissionDenied)\b/
const EXITED = /(?:exited with code|exit code) (\d+)/
const KILLED = /killed by (SIG[A-Z0-9]+)/

/** How the manager's reason starts when npm said the package does not exist (it is not retried). */
const NOT_IN_REGISTRY = "the package does not exist in the registry"

const isPath = (command: string): boolean => command.includes("/") || command.includes("\\")

/**
 * Why `command` could not be spawned, in words, when the failure is one a person fixes in the config file.
 *
 * @since 0.1.0
 * @category advice
 */
export const spawnFailure = (lastError: string | undefined, command: string): string | undefined => {
  const kind = SPAWN_FAILURE.exec(lastError ?? "")?.[1]
  if (kind === undefined) return undefined
  if (kind === "NotFound") {
    return isPath(command)
      ? `${JSON.stringify(command)} does not exist (fix "command" in the config file)`
      : `command ${JSON.stringify(command)} was not found on PATH (install it, or fix "command" in the config file)`
  }
  return `${
    isPath(command) ? JSON.stringify(command) : `command ${JSON.stringify(command)}`
  } is not executable (chmod +x it, or fix "command" in the config file)`
}

const stderrBlock = (name: string, lines: ReadonlyArray<string>, empty: string): string =>
  lines.length === 0 ? `; ${empty}` : `; last stderr:\n${quote(name, lines.slice(-QUOTED_LINES))}`

/**
 * One explanation (a sentence, then maybe an indented block of stderr lines) of why `h` is not ready.
 * `stderr` is the server's last stderr lines as the CLI saw them (for a crashed server, the health's own tail —
 * its last process's lines — is preferred; it is also used when `stderr` is empty);
 * `waited` is how long the command waited, in words.
 *
 * @since 0.1.0
 * @category advice
 */
export const explain = (
  h: ServerHealth.ServerHealth,
  entry: McpConfig.ServerEntry | undefined,
  stderr: ReadonlyArray<string>,
  waited: string
): string => {
  const server = `MCP server ${JSON.stringify(h.name)}`
  // A crashed server's own tail is its last process's lines; the live lines span every restart.
  const lines = h.state === "offline" && h.stderrTail.length > 0
    ? h.stderrTail
    : stderr.length > 0
    ? stderr
    : h.stderrTail
  switch (h.state) {
    case "disabled":
      return `${server} is disabled in the configuration.`
    case "unauthorized":
      return `${server} ${h.lastError ?? "needs authorization"}`
    case "starting":
      if (h.stdoutNotJson !== undefined && StatusText.stdoutIsNotJsonRpc(h)) {
        const { lines: junk, messages } = h.stdoutNotJson
        return `${server} was still starting after ${waited}: its stdout is not JSON-RPC (${junk} ${
          junk === 1 ? "line" : "lines"
        } that are not JSON, ${messages} JSON-RPC ${
          messages === 1 ? "message" : "messages"
        }; is the server printing logs to stdout? only JSON-RPC may go there)${
          lines.length === 0 ? "." : stderrBlock(h.name, lines, "")
        }`
      }
      return lines.length === 0
        ? `${server} was still starting after ${waited}; wait longer with --wait.`
        : `${server} was still starting after ${waited} (no answer to initialize yet; wait longer with --wait)${
          stderrBlock(h.name, lines, "")
        }`
    case "offline": {
      const spawn = entry === undefined ? undefined : spawnFailure(h.lastError, entry.command)
      if (spawn !== undefined) return `${server} could not be started: ${spawn}.`
      const code = EXITED.exec(h.lastError ?? "")?.[1]
      const signal = KILLED.exec(h.lastError ?? "")?.[1]
      if (code === undefined && signal === undefined) {
        return `${server} is offline: ${h.lastError ?? "no reason recorded"}`
      }
      if (h.gaveUp && h.lastError?.startsWith(NOT_IN_REGISTRY) === true) {
        return `${server} names a package that does not exist in the registry (npm answered 404; not retried)${
          stderrBlock(h.name, lines, "it wrote nothing on stderr")
        }`
      }
      const starts = h.gaveUp ? h.attempt + 1 : Math.max(1, h.attempt)
      const how = code !== undefined ? `exit code ${code}` : `killed by ${signal}`
      const still = h.gaveUp ? "" : ", still reconnecting"
      return `${server} crashed ${starts} ${starts === 1 ? "time" : "times"} (${how})${still}${
        stderrBlock(h.name, lines, "it wrote nothing on stderr")
      }`
    }
    default:
      return `${server} settled as ${h.state}, not ready${h.lastError !== undefined ? `: ${h.lastError}` : "."}`
  }
}
