#!/usr/bin/env node
// @modelcontextprotocol/server (v2) mounted on node:http at 127.0.0.1: `createMcpHandler` with the tools of
// v2-tools.mjs (echo, change_tools, confirm). It serves 2026-07-28 requests and, statelessly, 2025-era ones
// (`legacy=reject`: 2026-07-28 only). Port from argv (`port=N`, default 0 = ephemeral); `ttl=N` adds a
// tools/list cache hint. change_tools announces on the subscriptions/listen streams (a stateless 2025-era
// client has no stream to hear it on). Once listening it writes one JSON line to stdout:
//
//   {"url":"http://127.0.0.1:41234/mcp","port":41234,"pid":12345}
//
// It stops on SIGTERM/SIGINT, and when its stdin is a pipe that ends.
import { createMcpHandler } from "@modelcontextprotocol/server"
import { createServer } from "node:http"
import { listenUntilStopped, toNodeListener } from "./fetch-adapter.mjs"
import { createFactory, options } from "./v2-tools.mjs"

const { port, legacy = "stateless", ttlMs } = options(process.argv.slice(2))
if (legacy !== "stateless" && legacy !== "reject") {
  process.stderr.write(`v2-server: legacy=${legacy} must be stateless or reject\n`)
  process.exit(2)
}
// One instance per request: the change is published on the handler's bus, which feeds the listen streams.
const factory = createFactory({ ttlMs, announce: () => handler.notify.toolsChanged() })
const handler = createMcpHandler(factory, { legacy })

const http = createServer(toNodeListener((request) => handler.fetch(request)))

listenUntilStopped(http, port, () => handler.close())
