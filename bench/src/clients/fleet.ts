/**
 * Placeholder slot for mcp-fleet's own transport (`@mcp-fleet/transport`).
 *
 * NOT WIRED YET, and therefore excluded from the default client list in `registry.ts`. The transport is being
 * written right now by another engineer, who will wire it here. To wire it:
 *
 * 1. add `"@mcp-fleet/transport": "workspace:*"` to bench/package.json and `{ "path": "../packages/transport" }`
 *    to bench/tsconfig.json `references` if type-checking needs it;
 * 2. in `start`, build the transport's scoped client over the given `ServerLaunch` with `NodeServices.layer`
 *    (see `effect.ts` for the same pattern: a `Scope` the adapter closes in `close`, a `ManagedRuntime` for the
 *    services, the child's pid for the shutdown cell), wait until it is ready, and map `callTool` / `listTools`;
 * 3. set `modules` to the transport's entry point(s) so the import-time cell times them;
 * 4. set `wired: true` for `fleet` in `registry.ts` so it joins the default run, then re-run `pnpm bench` and
 *    update BENCHMARKS.md.
 *
 * @since 0.0.0
 */
import type { ClientAdapter } from "../ClientAdapter.ts"

/**
 * The fleet adapter slot: `start` fails with "not wired yet" until the transport is wired in.
 *
 * @since 0.0.0
 */
export const adapter: ClientAdapter = {
  id: "fleet",
  label: "@mcp-fleet/transport (not wired yet)",
  modules: [],
  start: () =>
    Promise.reject(new Error("fleet: @mcp-fleet/transport is not wired yet (see bench/src/clients/fleet.ts)"))
}
