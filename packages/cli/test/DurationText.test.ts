import { Duration, Option } from "effect"
import { describe, expect, it } from "vitest"
import * as DurationText from "../src/DurationText.ts"

const ms = (text: string) => Option.map(DurationText.parse(text), Duration.toMillis)

describe("DurationText", () => {
  it("reads units, decimals, bare seconds and Effect's own spelling", () => {
    expect(ms("500ms")).toEqual(Option.some(500))
    expect(ms("30s")).toEqual(Option.some(30_000))
    expect(ms("1.5s")).toEqual(Option.some(1_500))
    expect(ms("2m")).toEqual(Option.some(120_000))
    expect(ms("1h")).toEqual(Option.some(3_600_000))
    expect(ms("10")).toEqual(Option.some(10_000))
    expect(ms("30 seconds")).toEqual(Option.some(30_000))
    expect(ms("200 millis")).toEqual(Option.some(200))
    expect(ms(" 5S ")).toEqual(Option.some(5_000))
  })

  it("rejects negatives, unknown units and empty text", () => {
    for (const text of ["", "-1s", "5x", "soon", "1.2.3s", "s"]) expect(ms(text)).toEqual(Option.none())
  })

  it("formats milliseconds below a second and seconds above", () => {
    expect(DurationText.format(Duration.millis(750))).toBe("750 ms")
    expect(DurationText.format(Duration.seconds(30))).toBe("30 s")
    expect(DurationText.format(Duration.millis(1_500))).toBe("1.5 s")
  })
})
