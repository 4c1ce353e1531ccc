#!/usr/bin/env node
// The floor of any stdio proxy written in Node: a hand-written relay (no Effect, no SDK, no routing) between a host
// on stdin/stdout and one stdio server it spawns (`node relay-stdio.mjs <command> [args…]`).
//
// It does the least a proxy that understands the protocol must do with each message: parse the line (JSON.parse)
// and write it again (JSON.stringify), in each direction; every message produced from one chunk leaves in one write.
// No id mapping (one host), no names, no checks. The gateway's bench cell runs it beside `mcp-fleet serve` to show
// what a process in the middle costs on its own on this machine (BENCHMARKS.md, issue 29).
import { spawn } from "node:child_process"

const [command, ...args] = process.argv.slice(2)
if (command === undefined) {
  process.stderr.write("usage: relay-stdio.mjs <command> [args…]\n")
  process.exit(2)
}
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] })

/** Splits chunks into lines; each whole line is parsed and re-encoded; one write per chunk. */
const relay = (from, to) => {
  let rest = ""
  from.setEncoding("utf8")
  from.on("data", (chunk) => {
    const text = rest + chunk
    const lines = text.split("\n")
    rest = lines.pop()
    let out = ""
    for (const line of lines) if (line !== "") out += JSON.stringify(JSON.parse(line)) + "\n"
    if (out !== "") to.write(out)
  })
}
relay(process.stdin, child.stdin)
relay(child.stdout, process.stdout)
process.stdin.on("end", () => child.stdin.end())
child.on("exit", (code) => process.exit(code ?? 0))
process.on("SIGTERM", () => child.kill("SIGTERM"))
