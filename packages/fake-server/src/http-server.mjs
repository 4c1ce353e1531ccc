#!/usr/bin/env node
// The fake MCP server over HTTP, on 127.0.0.1: Streamable HTTP (default) or legacy HTTP+SSE
// (`legacy-sse`), with fault switches. Tokens come as arguments or in FAKE_MCP_MODE; see
// ../README.md ("The HTTP fake server"). Once listening it writes one JSON line to stdout:
//
//   {"url":"http://127.0.0.1:41234/mcp","port":41234,"pid":12345}
//
// It stops on SIGTERM/SIGINT, and when stdin is a pipe that ends (so a parent that dies takes it along).
import { fstatSync } from "node:fs"
import { startFakeHttpServer } from "./http/server.mjs"

const envTokens = (process.env.FAKE_MCP_MODE ?? "").split(/\s+/).filter((t) => t.length > 0)
const tokens = [...envTokens, ...process.argv.slice(2)]

startFakeHttpServer(tokens).then(
  (server) => {
    // The handlers come before the lines that say it started: a parent that signals on seeing them must not
    // find the default action (death by signal) still in place.
    const stop = () => server.close().then(() => process.exit(0))
    process.on("SIGTERM", stop)
    process.on("SIGINT", stop)
    process.stdout.write(JSON.stringify({ url: server.url, port: server.port, pid: process.pid }) + "\n")
    process.stderr.write(`fake-mcp-http-server: started pid=${process.pid} url=${server.url} modes=${server.label}\n`)
    const stdin = fstatSync(0)
    if (stdin.isFIFO() || stdin.isSocket()) {
      process.stdin.on("end", stop)
      process.stdin.resume()
    }
  },
  (error) => {
    process.stderr.write(`${error.message}; see packages/fake-server/README.md\n`, () => process.exit(2))
  }
)
