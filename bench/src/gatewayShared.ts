/**
 * Issue 30's per-request costs of the gateway's shared state, each beside its in-process counterpart, same run:
 *
 * - a 2025-11-25 session: the in-process table lookup against sealing an id (once per session), opening one
 *   without the cache (a new replica's first request of the session) and with it (every later request);
 * - a token read on the call path (`McpAuth.headers` reads the store on every request): the in-memory store, the
 *   Redis store once warm, and one Redis `GET` round trip (what a cold or invalidated read costs);
 * - the Redis commands a warm token read sends (the goal: zero on the call path);
 * - the refresh lock: an uncontended `exclusive` (`SET NX PX`, then the release script) against an in-process
 *   semaphore.
 *
 * Each cell runs its operation back to back in one fiber (one `Effect.runPromise` per round), `--rounds` rounds of
 * `--ops` operations after a warm-up; the table gives the median round's µs per operation. It starts its own
 * redis-server on a free port (packages/testing's `Daemons`). Not a test: nothing asserts a time.
 *
 *   node bench/src/gatewayShared.ts [--rounds=5] [--ops=20000]
 *
 * @since 0.0.0
 */
import { NodeServices } from "@effect/platform-node"
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { TokenStore } from "@mcp-fleet/auth"
import { SessionKeys, SessionSeal, SharedState } from "@mcp-fleet/gateway"
import { Daemons } from "@mcp-fleet/testing"
import * as Context from "effect/Context"
import * as Aead from "effect/crypto/Aead"
import * as Digest from "effect/crypto/Digest"
import * as SecureRandom from "effect/crypto/SecureRandom"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redis from "effect/persistence/Redis"
import * as Redacted from "effect/Redacted"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import { loadavg } from "node:os"

const arg = (name: string, fallback: number) => {
  const given = process.argv.find((a) => a.startsWith(`--${name}=`))
  return given === undefined ? fallback : Number(given.slice(name.length + 3))
}
const ROUNDS = arg("rounds", 5)
const OPS = arg("ops", 20_000)

interface Row {
  readonly cell: string
  readonly micros: number
  readonly note: string
}

/** Runs `op` `ops` times per round after a warm-up; the median round's µs per operation. */
const measure = <E>(op: Effect.Effect<unknown, E>, ops: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < Math.min(2_000, ops); i++) yield* op
    const perOp: Array<number> = []
    for (let round = 0; round < ROUNDS; round++) {
      const start = performance.now()
      for (let i = 0; i < ops; i++) yield* op
      perOp.push(((performance.now() - start) * 1000) / ops)
    }
    perOp.sort((a, b) => a - b)
    return perOp[Math.floor(perOp.length / 2)]!
  })

const state: SessionSeal.SessionState = {
  protocolVersion: "2025-11-25",
  capabilities: { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } },
  clientInfo: { name: "claude-code", version: "2.1.215", title: "Claude Code" },
  profile: "readonly",
  logLevel: "warning"
}

const SERVER = "https://mcp.example/mcp"
const tokens: TokenStore.Tokens = {
  issuer: "https://as.example",
  accessToken: Redacted.make("a".repeat(40)),
  refreshToken: Redacted.make("r".repeat(40)),
  expiresAt: Date.UTC(2100, 0),
  obtainedAt: 0,
  scope: "read write"
}

const crypto = Layer.mergeAll(Aead.layerWebCrypto, Digest.layerWebCrypto).pipe(
  Layer.provideMerge(SecureRandom.layerWebCrypto)
)

const program = Effect.gen(function*() {
  const rows: Array<Row> = []
  const load = [loadavg()[0]!.toFixed(2)]

  // Sessions.
  const keys = yield* SessionKeys.parse(yield* SessionKeys.generate)
  const cached = yield* SessionSeal.make({ keys })
  const uncached = yield* SessionSeal.make({ keys, cacheSize: 0 })
  const id = yield* cached.seal(state)
  const table = new Map([[id, { ...state, sid: "x" }]])
  rows.push({
    cell: "session: in-process table lookup",
    micros: yield* measure(Effect.sync(() => table.get(id)), OPS),
    note: "what a single-machine gateway does per request"
  })
  rows.push({
    cell: "session: seal (initialize)",
    micros: yield* measure(cached.seal(state), OPS / 4),
    note: `once per session; the id is ${id.length} characters`
  })
  rows.push({
    cell: "session: open, not cached",
    micros: yield* measure(uncached.open(id), OPS / 4),
    note: "a replica's first request of the session"
  })
  rows.push({
    cell: "session: open, cached",
    micros: yield* measure(cached.open(id), OPS),
    note: "every later request on that replica"
  })

  // Tokens.
  const redis = yield* Daemons.redis()
  const memory = yield* TokenStore.makeMemory
  yield* memory.setTokens(SERVER, tokens)
  rows.push({
    cell: "token read: in-memory store",
    micros: yield* measure(memory.getTokens(SERVER), OPS),
    note: "McpAuth.headers reads the store on every request"
  })
  const shared = yield* Layer.build(
    SharedState.layer({ redis: { url: Redacted.make(redis.url) }, tokens: TokenStore.layerMemory })
  )
  const store = Context.get(shared, TokenStore.TokenStore)
  const status = Context.get(shared, SharedState.SharedState)
  yield* Stream.runHead(Stream.filter(status.changes, (s) => s._tag === "Connected"))
  yield* store.setTokens(SERVER, tokens)
  yield* store.getTokens(SERVER)
  const raw = Context.get(yield* Layer.build(NodeRedis.layer({ url: redis.url })), Redis.Redis)
  const processed = Effect.map(
    raw.send<string>("INFO", "stats"),
    (info) => Number(/total_commands_processed:(\d+)/.exec(info)?.[1])
  )
  const before = yield* processed
  rows.push({
    cell: "token read: Redis store, warm",
    micros: yield* measure(store.getTokens(SERVER), OPS),
    note: "read once, kept until another replica writes it"
  })
  const sent = (yield* processed) - before - 1
  const reads = Math.min(2_000, OPS) + ROUNDS * OPS
  rows.push({
    cell: "Redis commands per warm token read",
    micros: sent / reads,
    note: `${sent} commands for ${reads} reads (the column is commands, not µs)`
  })
  const key = `mcp-fleet:tokens:${SERVER}`
  rows.push({
    cell: "token read: one Redis GET round trip",
    micros: yield* measure(raw.send("GET", key), OPS / 4),
    note: "a cold or invalidated read (plus decoding)"
  })
  if (Option.isNone(yield* store.getTokens(SERVER))) return yield* Effect.die("the Redis store lost the tokens")

  // The refresh lock.
  const mutex = yield* Semaphore.make(1)
  rows.push({
    cell: "refresh lock: in-process semaphore",
    micros: yield* measure(mutex.withPermit(Effect.void), OPS),
    note: "one replica's McpAuth mutex"
  })
  const exclusive = store.exclusive ?? ((_, effect) => effect)
  rows.push({
    cell: "refresh lock: Redis, uncontended",
    micros: yield* measure(exclusive(SERVER, Effect.void), OPS / 10),
    note: "SET NX PX, then the release script: paid once per refresh, not per call"
  })

  load.push(loadavg()[0]!.toFixed(2))
  const width = Math.max(...rows.map((r) => r.cell.length))
  console.log(`gateway shared state, ${ROUNDS} rounds, median round; 1-minute load ${load.join(" → ")}`)
  console.log(`${"cell".padEnd(width)} | µs/op   | note`)
  console.log(`${"-".repeat(width)} | ------- | ----`)
  for (const row of rows) {
    console.log(`${row.cell.padEnd(width)} | ${row.micros.toFixed(row.micros < 1 ? 3 : 1).padStart(7)} | ${row.note}`)
  }
})

Effect.runPromise(program.pipe(Effect.scoped, Effect.provide([crypto, NodeServices.layer]))).catch((error) => {
  console.error(error)
  process.exitCode = 1
})
