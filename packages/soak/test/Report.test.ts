import { assert, describe, it } from "@effect/vitest"
import * as LogTally from "../src/LogTally.ts"
import * as Reconnections from "../src/Reconnections.ts"
import * as Report from "../src/Report.ts"
import type { Checkpoint, SoakResult } from "../src/Soak.ts"
import { segmentsOf, warmupOf } from "../src/Soak.ts"
import * as SoakFleet from "../src/SoakFleet.ts"
import { defaults } from "../src/SoakOptions.ts"
import * as Tallies from "../src/Tally.ts"

const MiB = 1024 * 1024

const point = (label: string, heapMiB: number, extra: Partial<Checkpoint> = {}): Checkpoint => ({
  label,
  activeMs: 0,
  heap: { heapUsed: heapMiB * MiB, forcedGc: true },
  processes: 20,
  serversWithPid: 20,
  strays: [],
  notSettled: [],
  gaveUp: [],
  ...extra
})

const clean = (): SoakResult => {
  const tally = Tallies.make()
  tally.ops.echo.calls = 10
  tally.ops.echo.succeeded = 9
  tally.ops.echo.failed.set("ProcessExited", 1)
  return {
    options: defaults,
    runId: "soak-test",
    fleet: SoakFleet.servers(20),
    warmupMs: 30_000,
    activeMs: 600_000,
    wallMs: 620_000,
    tally,
    reconnections: Reconnections.make(),
    checkpoints: [point("start", 30), point("end", 31)],
    stragglers: 0,
    closeWork: { _tag: "Closed", ms: 1 },
    closeLayer: { _tag: "Closed", ms: 200 },
    processesLeft: [],
    scanErrors: []
  }
}

describe("Report", () => {
  it("a clean run passes and says so", () => {
    const result = clean()
    assert.deepStrictEqual(Report.failures(result), [])
    const text = Report.render(result, LogTally.make())
    assert.include(text, "calls made    10")
    assert.include(text, "ProcessExited      1")
    assert.include(text, "+1.0 MiB; bound +16.0 MiB): flat")
    assert.include(text, "left after close: 0")
    assert.match(text, /verdict\s+PASS$/)
  })

  it("a heap that rises at every checkpoint is not called flat, even within the bound", () => {
    const rising = { ...clean(), checkpoints: [point("start", 30), point("c", 32), point("end", 34)] }
    assert.deepStrictEqual(Report.failures(rising), [])
    assert.include(Report.render(rising, LogTally.make()), "NOT flat: it rose at every checkpoint")
    const noisy = { ...clean(), checkpoints: [point("start", 30), point("c", 33), point("end", 32)] }
    assert.include(Report.render(noisy, LogTally.make()), "): flat")
  })

  it("each broken invariant fails the run with its reason", () => {
    const cases: ReadonlyArray<readonly [string, (r: SoakResult) => SoakResult]> = [
      ["did not settle", (r) => (r.tally.ops.sleep.unsettled = 1, r)],
      ["restarts did not return", (r) => (r.tally.restartsUnsettled = 1, r)],
      ["still running at the end", (r) => ({ ...r, stragglers: 2 })],
      ["chaos does not explain", (r) => (r.tally.ops.echo.failed.set("WrongAnswer", 1), r)],
      ["processes left after close", (r) => ({ ...r, processesLeft: [{ pid: 42, args: "node server.mjs" }] })],
      ["heap grew by 17.0 MiB", (r) => ({ ...r, checkpoints: [point("start", 30), point("end", 47)] })],
      ["layer did not close", (r) => ({ ...r, closeLayer: { _tag: "Hung", boundMs: 60_000 } })],
      ["not back in time", (r) => ({ ...r, checkpoints: [point("start", 30, { notSettled: ["s01: offline"] })] })],
      ["gave up", (r) => ({ ...r, checkpoints: [point("start", 30, { gaveUp: ["s01-plain"] })] })],
      ["21 processes alive for 20 servers", (r) => ({ ...r, checkpoints: [point("c", 30, { processes: 21 })] })],
      ["ps failed", (r) => ({ ...r, scanErrors: ["ps could not be run"] })]
    ]
    for (const [reason, breakIt] of cases) {
      const result = breakIt(clean())
      const why = Report.failures(result)
      assert.strictEqual(why.length, 1, `${reason}: ${why.join(" | ")}`)
      assert.include(why[0]!, reason)
      assert.include(Report.render(result, LogTally.make()), "verdict       FAIL")
    }
  })

  it("warm-up and segments add up to the duration", () => {
    for (const duration of [5_000, 60_000, 600_000, 3_600_000]) {
      const warmup = warmupOf(duration)
      const segments = segmentsOf(duration - warmup)
      assert.strictEqual(warmup + segments.reduce((a, b) => a + b, 0), duration)
      assert.isAtMost(warmup, 30_000)
    }
    assert.strictEqual(warmupOf(600_000), 30_000)
    assert.strictEqual(segmentsOf(570_000).length, 5)
  })
})
