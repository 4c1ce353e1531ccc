/**
 * Where a round trip's time goes at concurrency 1: marks the call, the `stdin` write (before and after the
 * syscall), the arrival of the response on `stdout` (the socket's `push`) and the caller's resumption, for each
 * client named, one after the other against the echo server, and prints the median of each segment.
 *
 *   node src/latencyProbe.ts --clients=raw,sdk,fleet --ms=2000
 *
 * The marks patch `net.Socket.prototype.write` and `Readable.prototype.push` in this process only (both clients'
 * pipes are `net.Socket`s); nothing in the libraries is instrumented.
 *
 * @since 0.0.0
 */
import * as net from "node:net"
import { Readable } from "node:stream"
import { clientEntries } from "./clients/registry.ts"
import { echoLaunch } from "./EchoServer.ts"

const arg = (name: string, fallback: string): string => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`))
  return found === undefined ? fallback : found.slice(name.length + 3)
}

type Mark = "call" | "write<" | "write>" | "arrive" | "resumed"
let recording = false
const marks: Array<readonly [Mark, number]> = []
const mark = (name: Mark) => {
  if (recording) marks.push([name, performance.now()])
}

const write = net.Socket.prototype.write
function markedWrite(this: net.Socket, ...args: Array<unknown>): boolean {
  mark("write<")
  const result: boolean = Reflect.apply(write, this, args)
  mark("write>")
  return result
}
net.Socket.prototype.write = markedWrite
const push = Readable.prototype.push
Readable.prototype.push = function(this: Readable, chunk: unknown, encoding?: BufferEncoding) {
  if (this instanceof net.Socket && chunk !== null) mark("arrive")
  return push.call(this, chunk, encoding)
}

const SEGMENTS: ReadonlyArray<readonly [Mark, Mark, string]> = [
  ["call", "write<", "call → stdin write starts (client)"],
  ["write<", "write>", "the write syscall"],
  ["write>", "arrive", "server + both wake-ups"],
  ["arrive", "resumed", "stdout chunk → caller resumed (client)"],
  ["call", "resumed", "whole round trip"]
]

const median = (values: Array<number>): number => {
  values.sort((a, b) => a - b)
  return values[values.length >> 1] ?? Number.NaN
}

const ms = Number(arg("ms", "2000"))
const rows: Array<string> = []
for (const id of arg("clients", "raw,fleet").split(",")) {
  const entry = clientEntries.find((e) => e.id === id)
  if (entry === undefined) throw new Error(`unknown client ${id}`)
  const session = await (await entry.load()).start(echoLaunch({}))
  const payload = "x".repeat(64)
  const run = async (until: number) => {
    while (performance.now() < until) {
      mark("call")
      await session.call(payload)
      mark("resumed")
    }
  }
  await run(performance.now() + 300)
  marks.length = 0
  recording = true
  await run(performance.now() + ms)
  recording = false
  await session.close()
  // One round trip = the marks from a `call` to the next `resumed`; the first of each kind in it is used.
  const segments = new Map<string, Array<number>>(SEGMENTS.map(([, , label]) => [label, []]))
  let trip = new Map<Mark, number>()
  let trips = 0
  for (const [name, at] of marks) {
    if (name === "call") trip = new Map([["call", at]])
    else if (!trip.has(name)) trip.set(name, at)
    if (name !== "resumed") continue
    trips++
    for (const [from, to, label] of SEGMENTS) {
      const start = trip.get(from)
      const end = trip.get(to)
      if (start !== undefined && end !== undefined) segments.get(label)!.push((end - start) * 1000)
    }
  }
  rows.push(`${id} (${trips} round trips):`)
  for (const [label, values] of segments) rows.push(`  ${label.padEnd(42)} ${median(values).toFixed(1).padStart(7)} µs`)
}
process.stdout.write(`${rows.join("\n")}\n`)
