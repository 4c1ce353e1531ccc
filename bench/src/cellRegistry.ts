/**
 * Every benchmark cell, in report order.
 *
 * @since 0.0.0
 */
import type { Cell } from "./Cell.ts"
import { makeCallCell } from "./cells/callCell.ts"
import { coldCells } from "./cells/coldCells.ts"
import { fleetCells } from "./cells/fleetCells.ts"
import { heapCell } from "./cells/heapCell.ts"
import { importCell } from "./cells/importCell.ts"
import { lifecycleCell } from "./cells/lifecycleCell.ts"
import { listScanCell } from "./cells/listScanCell.ts"
import { managerCells } from "./cells/managerCells.ts"

/**
 * The cells: tools/call at concurrency 1 and 64 with 64 B and 64 KiB payloads, the 2,000-tool scan,
 * startup/shutdown, import time, heap (warm: one long-lived bench process), then the cold cells (a fresh process
 * per client, cell and round), then the manager cells.
 *
 * @since 0.0.0
 */
export const cells: ReadonlyArray<Cell> = [
  makeCallCell({ concurrency: 1, payloadBytes: 64, payloadLabel: "64B" }),
  makeCallCell({ concurrency: 64, payloadBytes: 64, payloadLabel: "64B" }),
  makeCallCell({ concurrency: 1, payloadBytes: 64 * 1024, payloadLabel: "64KiB" }),
  makeCallCell({ concurrency: 64, payloadBytes: 64 * 1024, payloadLabel: "64KiB" }),
  listScanCell,
  lifecycleCell,
  importCell,
  heapCell,
  ...coldCells,
  ...fleetCells,
  ...managerCells
]
