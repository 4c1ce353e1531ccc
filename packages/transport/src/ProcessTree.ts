/**
 * A server's whole descendant tree, read from the process table, so that closing a stdio client ends what left
 * the server's process group too: a grandchild that called `setsid()` (a daemonizing server, a wrapper that
 * detaches) is in another session and group, and the group signal never reaches it.
 *
 * The stdio transport reads the table when `close` (or `forceClose`) begins, while the server still runs and its
 * descendants still name it through their parent links, whatever their session or group. The ones still there when
 * the group is signalled get the same ladder: SIGTERM, up to `killGrace` for them to go, SIGKILL, up to a second
 * more. A process is recognised by its pid and its start time, so a pid reused in between is never signalled.
 *
 * The service is optional: without it the transport signals the process group only, as before. Apps on Node
 * provide `NodeProcessTree.layer` (the CLI does).
 *
 * What it cannot catch: a descendant forked after the table was read (one that double-forks after `close` began),
 * and the descendants of a server that exited by itself before `close` (they were re-parented to init, and no
 * link leads to them any more).
 *
 * @since 0.4.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"

/**
 * One process of the table.
 *
 * @since 0.4.0
 * @category models
 */
export interface Entry {
  readonly pid: number
  readonly ppid: number
  /** When it started, in the table's own terms: a pid reused by another process has another start. */
  readonly start: string
  /** It has exited and waits to be reaped: no signal reaches it, and it holds nothing. */
  readonly zombie: boolean
}

/**
 * The signals the transport sends.
 *
 * @since 0.4.0
 * @category models
 */
export type Signal = "SIGTERM" | "SIGKILL"

/**
 * The process table could not be read (no `/proc`, no `ps`).
 *
 * @since 0.4.0
 * @category errors
 */
export class ProcessTableUnreadable extends Schema.TaggedError<ProcessTableUnreadable>()("ProcessTableUnreadable", {
  reason: Schema.String
}) {
  override get message(): string {
    return `The process table could not be read: ${this.reason}.`
  }
}

/**
 * The process table and signals, as a service (`NodeProcessTree.layer` on Node).
 *
 * @since 0.4.0
 * @category services
 */
export class ProcessTree extends Context.Service<ProcessTree, {
  /** This process's own pid: a server's process is its child. */
  readonly self: number
  /** Every process in the table now. */
  readonly table: Effect.Effect<ReadonlyArray<Entry>, ProcessTableUnreadable>
  /** Sends `signal` to `pid`; a process that is already gone is no error. */
  readonly signal: (pid: number, signal: Signal) => Effect.Effect<void>
}>()("@mcp-fleet/transport/ProcessTree") {}

/**
 * Every descendant of `root` in `table`, parents before children, whatever their session or group. Empty when
 * `root` is not in the table or is not a child of `self` (a pid that is not the server this process started).
 *
 * @since 0.4.0
 * @category tree
 */
export const descendants = (table: ReadonlyArray<Entry>, root: number, self: number): ReadonlyArray<Entry> => {
  const top = table.find((entry) => entry.pid === root)
  if (top === undefined || top.ppid !== self) return []
  const children = new Map<number, Array<Entry>>()
  for (const entry of table) {
    if (entry.pid === entry.ppid) continue
    const siblings = children.get(entry.ppid)
    if (siblings === undefined) children.set(entry.ppid, [entry])
    else siblings.push(entry)
  }
  const found: Array<Entry> = []
  const seen = new Set<number>([root])
  const queue = [root]
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      if (seen.has(child.pid)) continue
      seen.add(child.pid)
      found.push(child)
      queue.push(child.pid)
    }
  }
  return found
}

/**
 * The processes of `collected` that still run: the same pid with the same start, and not a zombie.
 *
 * @since 0.4.0
 * @category tree
 */
export const survivors = (collected: ReadonlyArray<Entry>, table: ReadonlyArray<Entry>): ReadonlyArray<Entry> => {
  if (collected.length === 0) return collected
  const now = new Map(table.map((entry) => [entry.pid, entry]))
  return collected.filter((entry) => {
    const current = now.get(entry.pid)
    return current !== undefined && current.start === entry.start && !current.zombie
  })
}

/**
 * One `/proc/<pid>/stat` line as an entry (Linux). The command name, in parentheses, may hold spaces and
 * parentheses itself, so the fields are read after the last `)`; the start is field 22 (`starttime`).
 *
 * @since 0.4.0
 * @category parsing
 */
export const parseStat = (text: string): Entry | undefined => {
  const open = text.indexOf("(")
  const close = text.lastIndexOf(")")
  if (open < 0 || close < open) return undefined
  const pid = Number(text.slice(0, open).trim())
  const fields = text.slice(close + 1).trim().split(/\s+/)
  const ppid = Number(fields[1])
  const start = fields[19]
  if (!Number.isInteger(pid) || !Number.isInteger(ppid) || start === undefined) return undefined
  return { pid, ppid, start, zombie: fields[0] === "Z" || fields[0] === "X" }
}

/**
 * The output of `ps -A -o pid=,ppid=,stat=,lstart=` as entries (every platform with a POSIX `ps`).
 *
 * @since 0.4.0
 * @category parsing
 */
export const parsePs = (output: string): ReadonlyArray<Entry> => {
  const entries: Array<Entry> = []
  for (const line of output.split("\n")) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.+?)\s*$/.exec(line)
    if (match === null) continue
    entries.push({
      pid: Number(match[1]),
      ppid: Number(match[2]),
      start: match[4]!,
      zombie: match[3]!.startsWith("Z")
    })
  }
  return entries
}

/** How often the table is read while waiting for signalled processes to go. */
export const POLL_MS = 20
/** How long one read of the table may take (`ps` can stall on a sick system): past it, the read counts as failed. */
export const READ_BOUND_MS = 1_000
/** How long processes may take to go after SIGKILL (as the spawner's own wait for a group). */
export const AFTER_KILL_MS = 1_000

/** One read of the table, bounded by `READ_BOUND_MS`. */
const read = (tree: ProcessTree["Service"]): Effect.Effect<ReadonlyArray<Entry>, ProcessTableUnreadable> =>
  tree.table.pipe(
    Effect.timeoutOption(READ_BOUND_MS),
    Effect.flatMap(Option.match({
      onNone: () => Effect.fail(new ProcessTableUnreadable({ reason: `no answer within ${READ_BOUND_MS} ms` })),
      onSome: Effect.succeed
    }))
  )

/**
 * The descendants of `root` now, or none when the table cannot be read (the group signal still goes out).
 *
 * @since 0.4.0
 * @category shutdown
 */
export const collect = (tree: ProcessTree["Service"], root: number): Effect.Effect<ReadonlyArray<Entry>> =>
  read(tree).pipe(
    Effect.map((table) => descendants(table, root, tree.self)),
    Effect.catch((error) => Effect.as(Effect.logDebug(error.message), []))
  )

/** The ones of `strays` still running, read now; none when the table cannot be read (nothing unverified is signalled). */
const alive = (tree: ProcessTree["Service"], strays: ReadonlyArray<Entry>): Effect.Effect<ReadonlyArray<Entry>> =>
  strays.length === 0 ? Effect.succeed(strays) : read(tree).pipe(
    Effect.map((table) => survivors(strays, table)),
    Effect.orElseSucceed((): ReadonlyArray<Entry> => [])
  )

/** Waits until none of `strays` runs, reading the table every `POLL_MS`, for `boundMs` at most; returns who is left. */
const awaitGone = (
  tree: ProcessTree["Service"],
  strays: ReadonlyArray<Entry>,
  boundMs: number
): Effect.Effect<ReadonlyArray<Entry>> =>
  alive(tree, strays).pipe(
    Effect.repeat({ schedule: Schedule.spaced(POLL_MS), until: (left) => left.length === 0 }),
    Effect.timeoutOption(boundMs),
    Effect.flatMap(Option.match({ onNone: () => alive(tree, strays), onSome: Effect.succeed }))
  )

const signalAll = (tree: ProcessTree["Service"], strays: ReadonlyArray<Entry>, signal: Signal) =>
  Effect.forEach(strays, (entry) => tree.signal(entry.pid, signal), { discard: true })

/**
 * Ends `strays` (collected by `collect`) that still run: SIGTERM, up to `killGraceMs` for them to go, then SIGKILL
 * and up to `AFTER_KILL_MS` more. `force`: SIGKILL at once. Bounded by `killGraceMs + AFTER_KILL_MS` plus three
 * reads of the table (each bounded by `READ_BOUND_MS`); returns the ones still there at the end (none, unless one is
 * stuck in the kernel).
 *
 * @since 0.4.0
 * @category shutdown
 */
export const reap: (
  tree: ProcessTree["Service"],
  strays: ReadonlyArray<Entry>,
  options: { readonly killGraceMs: number; readonly force?: boolean | undefined }
) => Effect.Effect<ReadonlyArray<Entry>> = Effect.fnUntraced(function*(
  tree: ProcessTree["Service"],
  strays: ReadonlyArray<Entry>,
  options: { readonly killGraceMs: number; readonly force?: boolean | undefined }
) {
  let left = yield* alive(tree, strays)
  if (left.length === 0) return left
  if (options.force !== true) {
    yield* signalAll(tree, left, "SIGTERM")
    left = yield* awaitGone(tree, left, options.killGraceMs)
    if (left.length === 0) return left
  }
  yield* signalAll(tree, left, "SIGKILL")
  return yield* awaitGone(tree, left, AFTER_KILL_MS)
})
