/**
 * Issue 31: what the status page's call window costs the gateway. At its bounds (512 tools, 1,024 calls each, in a
 * 5-minute window): the first read of the figures (`tools()` and `series()`, what one `metrics` event needs), a read
 * after one new call (that tool and its server are computed again, the rest is kept), a read a second later with
 * nothing new (everything kept), the size of the event, and what recording a call costs on the call path. Every page
 * reads the same window, so these are per gateway, not per page. Not a test: nothing asserts a time.
 *
 *   node bench/src/statusWindow.ts [--rounds=21]
 *
 * @since 0.0.0
 */
import { CallWindow } from "@mcp-fleet/gateway"

const rounds = Number(process.argv.find((a) => a.startsWith("--rounds="))?.slice(9) ?? 21)
const NOW = 1_000_000

/** A window at its bounds: 512 tools on 20 servers, 1,024 calls each over the last 200 s, one in 50 an error. */
const full = () => {
  const window = CallWindow.make()
  for (let t = 0; t < 512; t++) {
    for (let i = 0; i < 1_024; i++) {
      window.record(`server${t % 20}`, `tool${t}`, NOW - 200_000 + i * 150 + (t % 7), (i * 37 + t) % 100, i % 50 === 0)
    }
  }
  return window
}

const median = (values: Array<number>) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** The median milliseconds of `measure` over `n` rounds, each on a window `setup` prepared. */
const cell = (label: string, n: number, setup: () => () => void) => {
  const times: Array<number> = []
  for (let k = 0; k < n; k++) {
    const measure = setup()
    const started = process.hrtime.bigint()
    measure()
    times.push(Number(process.hrtime.bigint() - started) / 1e6)
  }
  process.stdout.write(`| ${label} | ${median(times).toFixed(2)} ms | ${n} |\n`)
}

const read = (window: CallWindow.CallWindow, now: number) => {
  window.tools(now)
  window.series(now)
}

process.stdout.write("| cell | median | rounds |\n| --- | ---: | ---: |\n")
cell("first read at the bounds (512 tools × 1,024 calls)", Math.max(3, Math.floor(rounds / 4)), () => {
  const window = full()
  return () => read(window, NOW)
})
cell("read after one new call", rounds, () => {
  const window = full()
  read(window, NOW)
  return () => {
    window.record("server3", "tool3", NOW + 1, 5, false)
    read(window, NOW + 1)
  }
})
cell("read a second later, nothing new", rounds, () => {
  const window = full()
  read(window, NOW)
  return () => read(window, NOW + 1_000)
})
const window = full()
const bytes = JSON.stringify({ tools: window.tools(NOW), series: Object.fromEntries(window.series(NOW)) }).length
process.stdout.write(`| the metrics event's figures at the bounds | ${(bytes / 1024).toFixed(0)} KiB | 1 |\n`)
const recorder = CallWindow.make()
const started = process.hrtime.bigint()
for (let i = 0; i < 1_000_000; i++) recorder.record("server", `tool${i % 50}`, i, 3, false)
const ns = Number(process.hrtime.bigint() - started) / 1_000_000
process.stdout.write(`| record one call (1,000,000 calls on 50 tools) | ${ns.toFixed(0)} ns | 1 |\n`)
