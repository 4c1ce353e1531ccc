/**
 * Smoke runs of the bench's cold and fleet cells: each cold cell's fresh-process worker runs for `raw` and `fleet`
 * with tiny counts, each fleet cell for raw clients and for the manager (quick preset: 20 servers, 300 ms
 * windows), and each reports every metric the cell declares as a finite number. Shape only: nothing here asserts a time
 * (performance is measured by `pnpm bench`).
 */
import { describe, expect, it } from "vitest"
import type { CellContext } from "../src/Cell.ts"
import { coldCells } from "../src/cells/coldCells.ts"
import { fleetCells } from "../src/cells/fleetCells.ts"
import { adapter as raw } from "../src/clients/raw.ts"
import { presets } from "../src/Options.ts"

const context: CellContext = {
  config: { ...presets.quick, preset: "quick", clients: [], cells: [], jsonOut: undefined, coldScale: 0.005 },
  statsFile: () => "",
  log: () => {},
  note: () => {}
}

describe("bench cold cells (smoke)", () => {
  for (const cell of coldCells) {
    it.concurrent(`${cell.id}: raw and fleet, each in a fresh process, report every metric`, async () => {
      for (const client of ["raw", "fleet"]) {
        const measured = await cell.run(
          { id: client, label: client, modules: [], start: () => Promise.reject() },
          context
        )
        for (const metric of cell.metrics) {
          expect(Number.isFinite(measured[metric.key]), `${cell.id} ${client} ${metric.key}`).toBe(true)
        }
      }
    })
  }
})

describe("bench fleet cells (smoke)", () => {
  for (const cell of fleetCells) {
    it(`${cell.id}: raw clients and the manager report every metric`, async () => {
      for (const adapter of [raw, { ...raw, id: "fleet" }]) {
        const measured = await cell.run(adapter, context)
        for (const metric of cell.metrics) {
          expect(Number.isFinite(measured[metric.key]), `${cell.id} ${adapter.id} ${metric.key}`).toBe(true)
        }
      }
    })
  }
})
