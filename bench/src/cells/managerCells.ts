/**
 * Hook for the manager cells (issue 7), to be added once `@mcp-fleet/manager` exists.
 *
 * They are not client-adapter cells: they measure `McpManager.layer` itself, so they need a second, small
 * adapter (say `ManagerAdapter`: `build(servers: ReadonlyArray<ServerLaunch>) → { layerBuiltMs, allReady, close }`)
 * and one entry per manager implementation. Planned cells, each a {@link Cell} appended to `managerCells`:
 *
 * - `manager-build-100`: time to build the layer with 100 echo servers. It must not depend on how long servers
 *   take to initialize: run it twice, once with the echo server delaying `initialize` (add a `delay-init=MS`
 *   argument to echo-server.mjs) and once without; the two times should match.
 * - `manager-ready-100`: build → every server `ready`.
 * - `manager-idle-heap`: client-side heap per idle server (heap after GC with 100 idle servers, minus the heap
 *   with none, divided by 100), measured in a `--expose-gc` child like `heapProbe.ts`.
 *
 * `cellRegistry.ts` already spreads `managerCells` into the list, so adding them here is all the wiring needed.
 *
 * @since 0.0.0
 */
import type { Cell } from "../Cell.ts"

/**
 * The manager cells; empty until `@mcp-fleet/manager` can be benchmarked.
 *
 * @since 0.0.0
 */
export const managerCells: ReadonlyArray<Cell> = []
