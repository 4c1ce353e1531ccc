// @mcp-fleet/fake-server: a real MCP server over stdio for tests and demos, in plain JavaScript with
// no dependencies. This module tells a program where the server is and which tokens it understands;
// the server itself is `server.mjs`, run as a child process (`node <serverPath> slow delay=50`).
import { fileURLToPath } from "node:url"

/**
 * The absolute path of `server.mjs`, the file to run with `node`.
 *
 * @since 0.1.0
 * @type {string}
 */
export const serverPath = fileURLToPath(new URL("./server.mjs", import.meta.url))

/**
 * The absolute path of `http-server.mjs`, the fake MCP server over HTTP on 127.0.0.1 (Streamable HTTP or
 * legacy HTTP+SSE, with fault switches; see the README's "The HTTP fake server").
 *
 * @since 0.1.0
 * @type {string}
 */
export const httpServerPath = fileURLToPath(new URL("./http-server.mjs", import.meta.url))

export { modeEnvVar, modes, numberOptions, stringOptions } from "./vocabulary.mjs"
