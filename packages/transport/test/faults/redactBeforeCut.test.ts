/**
 * Issue 24, item 9, over stdio: every excerpt the client makes of a server's output has its secrets replaced
 * before it is cut, and a piece of a secret (8 characters or more) left against a cut is replaced too. Each case
 * puts a `Redacted` env value across one cut point: a stderr line's 512-character bound, the start of a stderr line
 * held from its end while it grew past that bound, the 160-character excerpts of log lines (an error response
 * without id, an answer to an unknown id, a line that is not JSON, an invalid message, a server log entry's data, a
 * line that is not UTF-8), an oversize line's 80-character excerpt, and the 500-character bound of an error message.
 *
 * The in-memory peer writes each shape; the test latches on what the client reports (stderr lines through
 * `onStderrLine`, log lines through a logger), never on time.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Cause, Deferred, Effect, Fiber, Logger, Queue, Redacted, References } from "effect"
import { controlledPeer } from "../peers.ts"
import { assertNoPiece } from "../secretPieces.ts"
import { failureOf } from "./helpers.ts"

const SECRET = "env_Q4wE8rT2yU6iO0pA3sD7"

/** Every line the client logs, in order, and a latch on the first one that satisfies a check. */
const logLines = Effect.gen(function*() {
  const lines: Array<string> = []
  const arrived = yield* Queue.unbounded<string>()
  const logger = Logger.make((options) => {
    const line = `${JSON.stringify(options.message)} ${Cause.pretty(options.cause)}`
    lines.push(line)
    Queue.offerUnsafe(arrived, line)
  })
  const until = (check: (line: string) => boolean): Effect.Effect<void> =>
    Queue.take(arrived).pipe(Effect.repeat({ until: check }), Effect.asVoid)
  return { lines, layer: Logger.layer([logger]), until }
})

describe("Fault: a secret across every cut the stdio client makes", () => {
  it.effect("stderr: across the 512-character line bound, and against the start a long line lost while it grew", () =>
    Effect.gen(function*() {
      const { layer, peer } = yield* controlledPeer({})
      const stderr = yield* Queue.unbounded<string>()
      const client = yield* McpClient.make({
        command: "server",
        name: "leaky",
        env: { TOKEN: Redacted.make(SECRET) },
        onStderrLine: (line) => Queue.offer(stderr, line).pipe(Effect.asVoid)
      }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const p = yield* peer
      const lines: Array<string> = []
      const next = Queue.take(stderr).pipe(Effect.tap((line) => Effect.sync(() => lines.push(line))))
      // The 512-character bound of a line: the secret from 500 to 524.
      yield* p.stderr(`${"a".repeat(500)}${SECRET}${"b".repeat(100)}\n`)
      yield* next
      // A line longer than 512 characters before its end arrives: only its last 512 are held, so for each k in
      // 8..23 the line kept starts with the secret's last k characters.
      for (let k = 8; k < SECRET.length; k++) {
        yield* p.stderr(`${"c".repeat(100)}${SECRET}${"d".repeat(512 - k)}`)
        yield* p.stderr("\n")
        yield* next
      }
      assert.strictEqual(lines.length, 1 + SECRET.length - 8)
      for (const [i, line] of lines.entries()) assertNoPiece(line, SECRET, `stderr line ${i}`)
      for (const [i, line] of client.stderrTail().entries()) assertNoPiece(line, SECRET, `tail line ${i}`)
      assert.include(lines[0]!, "<redacted>", "the whole secret before the line's bound is replaced")
      assert.isTrue(lines.slice(1).every((line) => line.startsWith("<redacted>d")), "the piece at each start")
    }))

  it.effect("log lines, an oversize line's excerpt and an error message: the secret across each cut", () =>
    Effect.gen(function*() {
      const log = yield* logLines
      yield* Effect.gen(function*() {
        const callId = yield* Deferred.make<unknown>()
        const { layer, peer } = yield* controlledPeer({
          onRequest: (msg) =>
            msg.method === "tools/call"
              ? Deferred.succeed(callId, msg.id).pipe(Effect.as(undefined))
              : Effect.succeed(msg.method === "tools/list" ? { tools: [] } : {})
        })
        const client = yield* McpClient.make({
          command: "server",
          name: "leaky",
          env: { TOKEN: Redacted.make(SECRET) },
          maxMessageBytes: 4096
        }).pipe(Effect.provide(layer))
        yield* client.awaitReady
        const p = yield* peer
        /** `head` and then the secret across a 160-character excerpt's cut (from 150 to 174 of the text cut). */
        const across = (head: string) => `${head}${"p".repeat(150 - head.length)}${SECRET} ${"q".repeat(300)}`
        // An error response without id: the excerpt is of its message.
        yield* p.send({ jsonrpc: "2.0", id: null, error: { code: -32000, message: across("") } })
        for (
          const head of [
            // The excerpt is of the id's JSON: its opening quote comes first.
            "\"",
            // A line that is not JSON.
            "",
            // An invalid message (both result and error), excerpted whole.
            `{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":"`
          ]
        ) {
          const text = across(head)
          if (head === "\"") yield* p.sendRaw(`{"jsonrpc":"2.0","id":${text}","result":{}}\n`)
          else if (head === "") yield* p.sendRaw(`${text}\n`)
          else yield* p.sendRaw(`${text}"}}\n`)
        }
        // A line that is not UTF-8: its excerpt starts with the replacement character.
        yield* p.sendRaw(new Uint8Array([0xff, ...new TextEncoder().encode(`${across("\ufffd").slice(1)}\n`)]))
        // The head of an oversize line, cut to 80 characters: the secret from 71 to 95.
        yield* p.sendRaw(`{"jsonrpc":"2.0","method":"x","params":"${"r".repeat(31)}${SECRET}${"s".repeat(5000)}"}\n`)
        yield* p.sendRaw("END-OF-STDOUT\n")
        yield* log.until((line) => line.includes("END-OF-STDOUT"))
        // A log entry's data that is not a string: an excerpt of its JSON.
        const data = across(`{"m":"LOG-MARK","k":"`).slice(`{"m":"LOG-MARK","k":"`.length)
        yield* p.send({
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level: "error", data: { m: "LOG-MARK", k: data } }
        })
        yield* log.until((line) => line.includes("LOG-MARK"))
        // An error message bounds the server's text to 500 characters.
        const call = yield* client.callTool("slow").pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
        const id = yield* Deferred.await(callId)
        yield* p.send({
          jsonrpc: "2.0",
          id,
          error: { code: -32000, message: `${"t".repeat(490)}${SECRET}${"u".repeat(300)}` }
        })
        const error = failureOf(yield* Fiber.join(call))
        assert.strictEqual(error._tag, "RemoteError")
        assertNoPiece(error.message, SECRET, "the RemoteError's message")
        assertNoPiece(JSON.stringify(error), SECRET, "the RemoteError")
        const expected = [
          "skipped an error response without id",
          "unknown or finished request id",
          "not JSON",
          "skipped an invalid message",
          "not valid UTF-8",
          "discarded a",
          "LOG-MARK"
        ]
        for (const marker of expected) {
          const line = log.lines.find((l) => l.includes(marker))
          assert.isDefined(line, `a log line with ${JSON.stringify(marker)}`)
          assertNoPiece(line!, SECRET, `the log line "${marker}"`)
        }
        for (const [i, line] of log.lines.entries()) assertNoPiece(line, SECRET, `log line ${i}`)
      }).pipe(Effect.provide(log.layer), Effect.provideService(References.MinimumLogLevel, "Trace"))
    }))
})
