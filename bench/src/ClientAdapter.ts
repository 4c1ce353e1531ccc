/**
 * The one small interface every benchmarked MCP client is driven through.
 *
 * Each client library (raw baselines, the official SDK, Effect's McpClient, mcp-fleet's transport) gets an
 * adapter in `src/clients/`. The harness only ever calls these methods, so every client is measured doing
 * the same work against the same echo server.
 *
 * @since 0.0.0
 */

/**
 * How to launch one echo server process: an executable and its arguments (no shell).
 *
 * @since 0.0.0
 */
export interface ServerLaunch {
  readonly command: string
  readonly args: ReadonlyArray<string>
}

/**
 * A live client session: returned by {@link ClientAdapter.start} once the client is ready
 * (the `initialize` response was received and `notifications/initialized` was sent).
 *
 * @since 0.0.0
 */
export interface ClientSession {
  /** Process id of the server child, used to check that it is gone after {@link ClientSession.close}. */
  readonly pid: number
  /** `tools/call` of the `echo` tool with `{ payload }`; resolves with the echoed text. */
  readonly call: (payload: string) => Promise<string>
  /**
   * Runs the tools/call cells' closed loop itself (`concurrency` workers calling `echo` back to back until
   * `until`, a `performance.now()` time) and resolves with every call's latency in ms. Absent: the harness's
   * Promise loop over `call` is used.
   */
  readonly callLoop?: (payload: string, concurrency: number, until: number) => Promise<Array<number>>
  /** Follows `tools/list` pagination to the end; resolves with the number of tools seen. */
  readonly listAll: () => Promise<number>
  /** Shuts the session down; resolves when the client reports it is closed. */
  readonly close: () => Promise<void>
}

/**
 * One benchmarked client library.
 *
 * @since 0.0.0
 */
export interface ClientAdapter {
  /** Short id used on the command line (`--clients=raw,sdk`) and as the table column. */
  readonly id: string
  /** One line saying what this client is. */
  readonly label: string
  /**
   * Module specifiers (resolved from the bench package) whose import the import-time cell times in a fresh
   * `node` process: the library's own entry points, not this adapter.
   */
  readonly modules: ReadonlyArray<string>
  /**
   * For a workspace library: the same entry points as `modules`, but resolved to the workspace's TypeScript sources
   * (which Node type-strips at import), where `modules` names the built JavaScript a published package ships.
   */
  readonly sourceModules?: ReadonlyArray<string>
  /** Spawns the server and resolves once the client is ready. */
  /**
   * The cells this client is run in (absent: every cell that applies). `fleet-auto` differs from `fleet` only in
   * its handshake, so it runs in the startup cells only.
   */
  readonly cells?: ReadonlyArray<string> | undefined
  readonly start: (server: ServerLaunch) => Promise<ClientSession>
}
