/**
 * Issue 24, a test gap: the manager keeps a modern server's `subscriptions/listen` open, re-opening it after its
 * `reconnect` schedule's delay when it ends, and every acknowledgement resets that schedule. No test dropped an
 * acknowledged listen more often than the schedule has attempts, so a reset that was lost stayed green. Here the
 * schedule allows 2 attempts and the server acknowledges, then ends, every listen: the manager must re-open it 5
 * times and more. In memory, under `TestClock`: each re-open waits for the test to move the clock.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpPeer, Sleeps } from "@mcp-fleet/testing"
import { Clock, Effect, Queue, Schedule } from "effect"
import { TestClock } from "effect/testing"
import { build, fleetSpawner } from "./fleetPeers.ts"

const discover = {
  resultType: "complete",
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: { listChanged: true } },
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern", version: "1" } }
}

describe("the manager's subscriptions/listen backoff (issue 24)", () => {
  it.effect("each acknowledgement resets the schedule: a listen acknowledged then ended 5 times is re-opened 5 times", () =>
    Effect.gen(function*() {
      const listens = yield* Queue.unbounded<unknown>()
      const { layer } = fleetSpawner({
        m: (_, peer) =>
          McpPeer.serve({
            discover: "script",
            onRequest: (msg) =>
              Effect.gen(function*() {
                switch (msg.method) {
                  case "server/discover":
                    return discover
                  case "tools/list":
                    return { resultType: "complete", tools: [{ name: "t", inputSchema: { type: "object" } }] }
                  case "subscriptions/listen": {
                    yield* Queue.offer(listens, msg.id)
                    // Acknowledged, then ended at once by the server (a graceful end: its result).
                    yield* peer.send({
                      jsonrpc: "2.0",
                      method: "notifications/subscriptions/acknowledged",
                      params: {
                        notifications: { toolsListChanged: true },
                        _meta: { "io.modelcontextprotocol/subscriptionId": msg.id }
                      }
                    })
                    return { resultType: "complete" }
                  }
                  default:
                    return undefined
                }
              })
          })(peer)
      })
      const sleeps = yield* Sleeps.make
      const manager = yield* build({
        servers: { m: { command: "m" } },
        // Two attempts, a second apart: without the reset, the third re-open would never come.
        reconnect: Schedule.spaced("1 second").pipe(Schedule.upTo({ times: 2 }))
      }, layer).pipe(Effect.provideService(Clock.Clock, sleeps.clock))
      yield* manager.waitForReady("m")
      yield* Sleeps.awaitEvent(Queue.take(listens))
      for (let reopened = 1; reopened <= 5; reopened++) {
        yield* Sleeps.awaitEvent(sleeps.next(1000))
        yield* TestClock.adjust(1000)
        yield* Sleeps.awaitEvent(Queue.take(listens))
      }
      assert.strictEqual((yield* manager.serverHealth("m")).state, "ready")
    }).pipe(Effect.scoped))
})
