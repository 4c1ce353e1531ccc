/**
 * The words of the ledger, explained: "curated" tools are the ones the config lists under a server's `curated`
 * (tools the host already bridges by hand); "external" are all the others. `tools` marks each tool `ro`
 * (the server says it only reads), `rw` (the server says it writes) or `?` (the server did not say: treat it as a
 * write).
 *
 * @since 0.1.0
 */
import type { ServerHealth } from "@mcp-fleet/manager"

/**
 * The sentence the help texts carry.
 *
 * @since 0.1.0
 * @category text
 */
export const EXPLAINED =
  "In the ledger, \"curated\" counts the tools a server's \"curated\" list in the config names (tools the host bridges by hand); \"external\" counts all the others."

/**
 * The read-only markers of `tools`, explained.
 *
 * @since 0.1.0
 * @category text
 */
export const MARKERS =
  "ro: the server says the tool only reads; rw: the server says it writes; ?: the server did not say (treat it as a write)."

/**
 * One stderr line explaining "curated / external" after the ledger, only when some server has a `curated` list
 * (otherwise every tool is "external" and the words need no explaining).
 *
 * @since 0.1.0
 * @category text
 */
export const legend = (healths: ReadonlyArray<ServerHealth.ServerHealth>): string | undefined =>
  healths.some((h) => h.curated.length > 0)
    ? "curated = tools named in a server's \"curated\" list in the config (bridged by hand); external = all other tools"
    : undefined
