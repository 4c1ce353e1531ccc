// The fake server's vocabulary, written once: its modes and its `key=value` options. The server
// (server.mjs) parses its tokens with these tables, and @mcp-fleet/testing's `FakeServer` builds
// tokens from them, so a new mode or option is added here and nowhere else (plus its behaviour in
// server.mjs and a line in the README). Plain JavaScript with JSDoc: `tsc` derives the types.

/**
 * Every mode (a token without `=`), in README order. Several modes combine.
 *
 * @since 0.1.0
 */
export const modes = /** @type {const} */ ([
  "plain",
  "junk-first",
  "reverse",
  "slow",
  "hang",
  "die-on-call",
  "tools-list",
  "tools-list-paged",
  "tools-list-endless",
  "empty-list",
  "list-changed",
  "slow-list",
  "no-initialize",
  "ignore-sigterm",
  "grandchild",
  "quiet-grandchild",
  "setsid-grandchild",
  "stderr-flood",
  "huge-line",
  "annotations",
  "leak-env",
  "features",
  "stdout-logs",
  "tasks",
  // The 2026-07-28 era (modern.mjs): no initialize, server/discover, _meta on every request, resultType,
  // subscriptions/listen, ttlMs/cacheScope, MRTR. The four after it are its fault switches.
  "modern",
  "wrong-result-type",
  "mrtr-endless",
  "listen-no-ack",
  "unsupported-empty"
])

/**
 * The modes of the 2026-07-28 era: `modern` and its fault switches (the HTTP fake server accepts these too).
 *
 * @since 0.1.0
 */
export const modernModes = /** @type {const} */ ([
  "modern",
  "wrong-result-type",
  "mrtr-endless",
  "listen-no-ack",
  "unsupported-empty"
])

/**
 * The numeric options (`token=N`, N a non-negative integer; durations in milliseconds), keyed by
 * their camelCase name, in the order `FakeServer.tokens` writes them. `min` and `max` narrow the
 * accepted values; `default` is the value when the token is absent (for `crash-after`, 0 means off).
 *
 * @since 0.1.0
 */
export const numberOptions = /** @type {const} */ ({
  tools: { token: "tools", default: 2 },
  pageSize: { token: "page-size", default: 3 },
  batch: { token: "batch", default: 4 },
  delay: { token: "delay", default: 200 },
  changeAfter: { token: "change-after", default: 50 },
  burst: { token: "burst", default: 1 },
  listDelay: { token: "list-delay", default: 500 },
  floodBytes: { token: "flood-bytes", default: 8 * 1024 * 1024 },
  hugeBytes: { token: "huge-bytes", default: 16 * 1024 * 1024 },
  crashAfter: { token: "crash-after", default: 0, min: 1 },
  initDelay: { token: "init-delay", default: 0 },
  exitCode: { token: "exit-code", default: 0, max: 255 },
  ttl: { token: "ttl", default: 0 },
  promptsDelay: { token: "prompts-delay", default: 0 },
  logInterval: { token: "log-interval", default: 20, min: 1 }
})

/**
 * The string options (`token=text`, text not empty), keyed by their camelCase name. `run-id` tags a
 * test run's servers for the leak guard.
 *
 * @since 0.1.0
 */
export const stringOptions = /** @type {const} */ ({
  protocol: { token: "protocol" },
  runId: { token: "run-id" }
})

/**
 * The environment variable the server reads tokens from (space separated), before its arguments.
 *
 * @since 0.1.0
 */
export const modeEnvVar = "FAKE_MCP_MODE"
