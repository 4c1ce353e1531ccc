/**
 * `mcp-fleet demo`: runs the manager on an embedded fleet of fake MCP servers (see `DemoFleet`) and narrates,
 * on stdout, what happens: the ledger changing as servers start, a call routed to one server, a call to a remote
 * server over Streamable HTTP (the fake server's HTTP mode, started on 127.0.0.1 by the demo), a call to a
 * server that is still starting, a crash and its reconnection, a tool-list refresh after `list_changed`, a
 * call to a disabled server, and a clean shutdown that leaves no process behind. It finishes on its own in
 * about three seconds.
 *
 * Every line reports something that happened: state changes are printed by the manager's `onStateChange`
 * listener as they happen, results and errors are the real ones. A step whose event does not come within ten
 * seconds fails the demo (exit 1) instead of being narrated.
 *
 * @since 0.1.0
 */
import type { ManagerOptions } from "@mcp-fleet/manager"
import { McpManager } from "@mcp-fleet/manager"
import { Tool } from "@mcp-fleet/transport"
import * as Command from "effect/cli/Command"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as CallOutput from "../CallOutput.ts"
import { CliEnvironment } from "../CliEnvironment.ts"
import { DemoFailed } from "../CliError.ts"
import * as DemoFleet from "../DemoFleet.ts"
import * as DemoRemote from "../DemoRemote.ts"
import { isRunning } from "../internal/ProcessProbe.ts"
import * as RemoteHttp from "../RemoteHttp.ts"

const STEP_TIMEOUT = "10 seconds"

const seconds = (ms: number): string => `${(ms / 1_000).toFixed(2)}s`

const indent = (text: string): string =>
  text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n")

const describeChange = (change: ManagerOptions.StateChange): string => {
  const h = change.health
  // A remote server has no pid: say how it is reached instead.
  const where = h.pid !== undefined ? `pid ${h.pid}` : h.transport === "stdio" ? "pid ?" : `over ${h.transport}`
  const detail = h.state === "ready"
    ? ` (${h.tools.length} tools, ${where})`
    : h.state === "starting" && h.attempt > 0
    ? ` (reconnection attempt ${h.attempt}/${h.maxAttempts}, ${where})`
    : h.lastError !== undefined && h.state !== "disabled"
    ? ` — ${h.lastError}`
    : ""
  return `● ${change.server}: ${change.from} → ${change.to}${detail}`
}

const describeTools = (tools: ReadonlyArray<Tool.DiscoveredTool>): string =>
  tools
    .filter((t) => t.name === "echo" || t.name.startsWith("hint_"))
    .map((t) => {
      const hint = Tool.hint(t, "readOnlyHint")
      return `${t.name} ${hint === "absent" ? "?" : hint ? "ro" : "rw"}`
    })
    .join(", ")

/** What the demo narrates with: the start time and the manager's events as they were printed. */
interface Narrator {
  readonly say: (text: string) => Effect.Effect<void>
  readonly heading: (text: string) => Effect.Effect<void>
  readonly printed: SubscriptionRef.SubscriptionRef<ReadonlyArray<ManagerOptions.StateChange>>
  /** The last non-empty tool list seen per server, to narrate what a refresh changed. */
  readonly lastTools: Map<string, ReadonlyArray<string>>
}

const makeNarrator = Effect.gen(function*() {
  const startedAt = yield* Clock.currentTimeMillis
  const printed = yield* SubscriptionRef.make<ReadonlyArray<ManagerOptions.StateChange>>([])
  const say = (text: string) =>
    Effect.flatMap(
      Clock.currentTimeMillis,
      (now) => Console.log(`[${seconds(now - startedAt).padStart(6)}] ${text}`)
    )
  const heading = (text: string) => Console.log(`\n== ${text}`)
  const narrator: Narrator = { say, heading, printed, lastTools: new Map() }
  return narrator
})

/** Waits until the listener has printed a change that satisfies `predicate` (including one printed before). */
const awaitPrinted = (
  narrator: Narrator,
  what: string,
  predicate: (change: ManagerOptions.StateChange) => boolean
): Effect.Effect<ManagerOptions.StateChange, DemoFailed> =>
  SubscriptionRef.changes(narrator.printed).pipe(
    Stream.map((changes) => changes.find(predicate)),
    Stream.filter((change) => change !== undefined),
    Stream.runHead,
    Effect.timeoutOption(STEP_TIMEOUT),
    Effect.map(Option.flatten),
    Effect.flatMap(Option.match({
      onNone: () => Effect.fail(new DemoFailed({ reason: `${what} did not happen within ${STEP_TIMEOUT}.` })),
      onSome: Effect.succeed
    }))
  )

const outcome = <A, E extends { readonly _tag: string; readonly message: string }>(
  effect: Effect.Effect<A, E>,
  onSuccess: (a: A) => string
): Effect.Effect<string> =>
  effect.pipe(
    Effect.match({ onFailure: (e) => `${e._tag}: ${e.message}`, onSuccess })
  )

/** The narrated script, given a manager built in `scope`; closing `scope` is its last step. */
const script = (
  narrator: Narrator,
  scope: Scope.Closeable,
  refreshed: Deferred.Deferred<ReadonlyArray<string>>
): Effect.Effect<void, DemoFailed, CliEnvironment | ChildProcessSpawner.ChildProcessSpawner> =>
  Effect.gen(function*() {
    const { say, heading } = narrator
    const { env, execPath } = yield* CliEnvironment
    const serverPath = yield* DemoFleet.fakeServerPath

    yield* Console.log("mcp-fleet demo: one McpManager, six fake MCP servers, everything below really happens.")
    yield* Console.log(`Fake server: ${serverPath}`)
    for (const server of DemoFleet.servers) {
      const envText = Object.entries(server.env).map(([k, v]) => ` env ${k}=${String(v)}`).join("")
      yield* Console.log(`  ${server.name.padEnd(9)} ${server.role}${envText}`)
      yield* Console.log(`  ${"".padEnd(9)} node server.mjs ${server.tokens.join(" ")}`.trimEnd())
    }
    const runId = env[DemoFleet.RUN_ID_ENV_VAR]
    const remote = yield* DemoRemote.start({ execPath, runId }).pipe(Scope.provide(scope))
    yield* Console.log(
      `  ${DemoFleet.remoteName.padEnd(9)} a remote server over Streamable HTTP, SSE replies, on 127.0.0.1`
    )
    yield* Console.log(
      `  ${"".padEnd(9)} node http-server.mjs ${DemoRemote.tokens.join(" ")} (pid ${remote.pid}) → ${remote.url}`
    )

    const options = DemoFleet.managerOptions({
      execPath,
      serverPath,
      runId,
      remoteUrl: remote.url,
      onStateChange: (change) =>
        narrator.say(describeChange(change)).pipe(
          Effect.andThen(SubscriptionRef.update(narrator.printed, (all) => [...all, change]))
        ),
      onToolsChanged: (change) => onToolsChanged(narrator, refreshed, change)
    })

    yield* heading("Start: building the layer spawns every enabled server; discovery runs in the background")
    const t0 = yield* Clock.currentTimeMillis
    const context = yield* Layer.buildWithScope(McpManager.layer(options), scope)
    const manager = Context.get(context, McpManager.McpManager)
    const t1 = yield* Clock.currentTimeMillis
    yield* say(`layer built in ${t1 - t0} ms; the ledger right away:`)
    yield* Console.log(indent(manager.statusLines()))

    const healthy = yield* awaitPrinted(narrator, "healthy becoming ready", (c) =>
      c.server === "healthy" && c.to === "ready")
    yield* heading("A call, routed to the server that was named")
    yield* say(`healthy's tools, read-only hint tri-state: ${describeTools(healthy.health.tools)}`)
    const args = { greeting: "hello from the demo" }
    yield* say(
      `→ healthy/echo ${JSON.stringify(args)} ⇒ ${yield* outcome(
        manager.call("healthy", "echo", args),
        (r) =>
          CallOutput.renderContent(r)
      )}`
    )

    yield* heading("A remote server, over Streamable HTTP")
    const remoteReady = yield* awaitPrinted(narrator, "remote becoming ready", (c) =>
      c.server === DemoFleet.remoteName && c.to === "ready")
    yield* say(
      `remote is ready over ${remoteReady.health.transport} at ${
        remoteReady.health.url ?? "?"
      } with ${remoteReady.health.tools.length} tools`
    )
    const remoteArgs = { text: "hello over HTTP" }
    yield* say(
      `→ remote/echo ${JSON.stringify(remoteArgs)} ⇒ ${yield* outcome(
        manager.call(DemoFleet.remoteName, "echo", remoteArgs),
        CallOutput.renderContent
      )}`
    )

    yield* heading("A slow start is not death")
    const slowNow = yield* manager.serverHealth("slow").pipe(Effect.orDie)
    yield* say(`slow is ${slowNow.state}; its process (pid ${slowNow.pid ?? "?"}) is left alone while it starts`)
    yield* say(`→ slow/echo now ⇒ ${yield* outcome(manager.call("slow", "echo", {}), CallOutput.renderContent)}`)

    yield* heading("A crash and a reconnection")
    const crashyReady = yield* awaitPrinted(narrator, "crashy becoming ready", (c) =>
      c.server === "crashy" && c.to === "ready")
    const oldPid = crashyReady.health.pid
    yield* say(
      `→ crashy/echo (pid ${oldPid ?? "?"}) ⇒ ${yield* outcome(
        manager.call("crashy", "echo", {}),
        CallOutput.renderContent
      )}`
    )
    const back = yield* awaitPrinted(
      narrator,
      "crashy's reconnection",
      (c) =>
        c.server === "crashy" && c.to === "ready" && c.health.pid !== oldPid
    )
    yield* say(`crashy was reconnected by its supervisor fiber: pid ${oldPid ?? "?"} → ${back.health.pid ?? "?"}`)

    yield* heading("A tool-list refresh after notifications/tools/list_changed")
    const names = yield* Deferred.await(refreshed).pipe(
      Effect.timeoutOption(STEP_TIMEOUT),
      Effect.flatMap((found) =>
        found._tag === "Some"
          ? Effect.succeed(found.value)
          : Effect.fail(
            new DemoFailed({ reason: `changing's tool-list refresh did not happen within ${STEP_TIMEOUT}.` })
          )
      )
    )
    yield* say(`changing now lists ${names.length} tools, among them ${
      names.filter((n) => n.startsWith("generation_")).join(", ")
    }`)

    yield* heading("The slow server arrives")
    const slowReady = yield* awaitPrinted(narrator, "slow becoming ready", (c) =>
      c.server === "slow" && c.to === "ready")
    yield* say(
      `slow is ready with ${slowReady.health.tools.length} tools, same pid ${slowReady.health.pid ?? "?"}: never killed`
    )

    yield* heading("A disabled server")
    yield* say(`→ archived/echo ⇒ ${yield* outcome(manager.call("archived", "echo", {}), CallOutput.renderContent)}`)

    yield* heading("The ledger now (manager.statusLines())")
    yield* Console.log(indent(manager.statusLines()))

    yield* heading("Shutdown: closing the layer's scope")
    const pids = [...manager.health().flatMap((h) => (h.pid !== undefined ? [h.pid] : [])), remote.pid]
    const s0 = yield* Clock.currentTimeMillis
    yield* Scope.close(scope, Exit.void)
    const s1 = yield* Clock.currentTimeMillis
    const running = yield* Effect.filter(pids, isRunning)
    yield* say(
      `scope closed in ${s1 - s0} ms: ${pids.length} server processes, the remote one included (pids ${
        pids.join(", ")
      }) stopped; still running: ${running.length === 0 ? "none" : running.join(", ")}`
    )
    if (running.length > 0) {
      return yield* new DemoFailed({ reason: `server processes still running after shutdown: ${running.join(", ")}.` })
    }
  })

const onToolsChanged = (
  narrator: Narrator,
  refreshed: Deferred.Deferred<ReadonlyArray<string>>,
  change: ManagerOptions.ToolsChange
): Effect.Effect<void> =>
  Effect.gen(function*() {
    const names = change.tools.map((t) => t.name)
    if (names.length === 0) return
    const before = narrator.lastTools.get(change.server)
    narrator.lastTools.set(change.server, names)
    if (before !== undefined) {
      const added = names.filter((n) => !before.includes(n))
      const removed = before.filter((n) => !names.includes(n))
      const diff = [...added.map((n) => `+${n}`), ...removed.map((n) => `-${n}`)].join(" ")
      yield* narrator.say(
        diff === ""
          ? `◆ ${change.server}: tools listed again, the same ${names.length}`
          : `◆ ${change.server}: tool list changed, ${before.length} → ${names.length} tools (${diff})`
      )
    }
    if (change.server === "changing" && names.some((n) => n.startsWith("generation_"))) {
      yield* Deferred.succeed(refreshed, names)
    }
  })

/**
 * Runs the demo: narrates on stdout, fails with `DemoFailed` if a step does not happen, and always closes the
 * manager (every server is stopped even when the demo fails or is interrupted).
 *
 * @since 0.1.0
 * @category running
 */
export const run: Effect.Effect<void, DemoFailed, CliEnvironment | ChildProcessSpawner.ChildProcessSpawner> = Effect
  .gen(function*() {
    const narrator = yield* makeNarrator
    const refreshed = yield* Deferred.make<ReadonlyArray<string>>()
    // The HTTP client outlives the manager's scope: the remote server's client uses it until that scope is closed.
    yield* Effect.acquireUseRelease(
      Scope.make(),
      (scope) => script(narrator, scope, refreshed),
      (scope, exit) => Scope.close(scope, exit)
    ).pipe(RemoteHttp.provideHttpClient)
    yield* narrator.say("demo finished.")
  })

/**
 * The `demo` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("demo", {}, () => run).pipe(
  Command.withDescription(
    "Run the manager on six embedded fake MCP servers and narrate what happens: the ledger changing, a routed call, a remote server over HTTP, a slow start, a crash and its reconnection, a tool-list refresh, a disabled server, a clean shutdown. Takes about three seconds."
  )
)
