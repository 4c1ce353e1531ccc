import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Daemons from "../src/Daemons.ts"
import * as FakeHttpServer from "../src/FakeHttpServer.ts"
import * as FakeServer from "../src/FakeServer.ts"
import * as LeakGuard from "../src/LeakGuard.ts"
import { LeakedProcesses } from "../src/TestingError.ts"
import { RawClient } from "./RawClient.ts"

const path = "/x/fake-server/server.mjs"

// Starts a process (detached, reaped with its group when the test's scope closes) and waits for its
// start line on stderr, so it is surely running when the test scans.
const started = (spec: FakeServer.Command) =>
  Effect.acquireRelease(
    Effect.sync(() => RawClient.start(spec)),
    (client) => Effect.promise(() => client.kill())
  ).pipe(Effect.tap((client) => Effect.promise(() => client.stderrLine((l) => l.includes("started"), "start"))))

describe("LeakGuard", () => {
  it.effect("parsePs reads pid and full command line, skipping a header", () =>
    Effect.sync(() => {
      const output =
        "    PID COMMAND\n      1 /sbin/init splash\n  4242 node /x/fake-server/server.mjs hang run-id=r1\n"
      assert.deepStrictEqual(LeakGuard.parsePs(output), [
        { pid: 1, args: "/sbin/init splash" },
        { pid: 4242, args: "node /x/fake-server/server.mjs hang run-id=r1" }
      ])
    }))

  it.effect("isFakeServer matches the server path, this run's id and untagged servers only", () =>
    Effect.sync(() => {
      const entry = (args: string) => ({ pid: 1, args })
      const options = { serverPath: path, runId: "r1" }
      assert.isTrue(LeakGuard.isFakeServer(entry(`node ${path} hang run-id=r1`), options))
      assert.isTrue(LeakGuard.isFakeServer(entry(`node ${path} --grandchild run-id=r1`), options))
      assert.isTrue(LeakGuard.isFakeServer(entry(`node ${path} plain`), options))
      assert.isFalse(LeakGuard.isFakeServer(entry(`node ${path} plain run-id=r2`), options))
      assert.isFalse(LeakGuard.isFakeServer(entry("node /elsewhere/server.mjs run-id=r1"), options))
      assert.isTrue(LeakGuard.isFakeServer(entry(`node ${path} plain run-id=r2`), { serverPath: path }))
    }))

  it.effect("isFakeServer matches the HTTP fake server too when no serverPath is given", () =>
    Effect.sync(() => {
      const entry = (args: string) => ({ pid: 1, args })
      const http = FakeHttpServer.serverPath
      assert.isTrue(LeakGuard.isFakeServer(entry(`node ${http} reply=sse run-id=r1`), { runId: "r1" }))
      assert.isFalse(LeakGuard.isFakeServer(entry(`node ${http} reply=sse run-id=r2`), { runId: "r1" }))
      assert.isTrue(LeakGuard.isFakeServer(entry(`node ${FakeServer.serverPath} plain`), { runId: "r1" }))
      assert.isFalse(LeakGuard.isFakeServer(entry(`node ${http} plain`), { serverPath: FakeServer.serverPath }))
    }))

  it.effect("isFakeServer matches the test daemons (redis-server, haproxy) of this run", () =>
    Effect.sync(() => {
      const entry = (args: string) => ({ pid: 1, args })
      const redis = (run: string) => `redis-server 127.0.0.1:40001 ${Daemons.marker} run-id=${run}`
      const haproxy = (run: string) => `haproxy -W -db -f /tmp/h.cfg -L ${Daemons.marker}/run-id=${run}`
      assert.isTrue(LeakGuard.isFakeServer(entry(redis("r1")), { runId: "r1" }))
      assert.isFalse(LeakGuard.isFakeServer(entry(redis("r2")), { runId: "r1" }))
      assert.isTrue(LeakGuard.isFakeServer(entry(haproxy("r1")), { runId: "r1" }))
      assert.isFalse(LeakGuard.isFakeServer(entry(haproxy("r2")), { runId: "r1" }))
      assert.isFalse(LeakGuard.isFakeServer(entry("redis-server 127.0.0.1:6379"), { runId: "r1" }))
    }))

  it.live("scan finds a running fake server and its grandchild", () =>
    Effect.gen(function*() {
      const runId = `scan-${randomUUID()}`
      const spec = FakeServer.command({ modes: ["grandchild"] })
      const client = yield* started({
        ...spec,
        args: [...spec.args.filter((a) => !a.startsWith("run-id=")), `run-id=${runId}`]
      })
      const line = yield* Effect.promise(() => client.stderrLine((l) => l.includes("grandchild pid="), "grandchild"))
      const grandchild = Number(line.split("pid=")[1])
      const found = yield* LeakGuard.scan({ runId })
      const ours = found.filter((p) => p.args.includes(`run-id=${runId}`))
      assert.deepStrictEqual(ours.map((p) => p.pid).sort(), [client.pid, grandchild].sort())
      assert.isTrue(ours.some((p) => p.args.includes("--grandchild")))
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("check kills leftovers and fails with LeakedProcesses naming each one", () =>
    Effect.gen(function*() {
      // A stand-in whose command line carries a unique marker, so no real server of this run is touched.
      const marker = `/tmp/leak-guard-test-${randomUUID()}`
      const client = yield* Effect.acquireRelease(
        Effect.sync(() =>
          RawClient.start({
            command: process.execPath,
            args: ["-e", "process.stderr.write('started\\n'); setInterval(() => {}, 1e9)", marker],
            env: {}
          })
        ),
        (c) => Effect.promise(() => c.kill())
      )
      yield* Effect.promise(() => client.stderrLine((l) => l === "started", "start"))
      const error = yield* Effect.flip(LeakGuard.check({ serverPath: marker }))
      assert.instanceOf(error, LeakedProcesses)
      if (error._tag === "LeakedProcesses") {
        assert.deepStrictEqual(error.processes.map((p) => p.pid), [client.pid])
        assert.include(error.message, `pid ${client.pid}: `)
        assert.include(error.message, marker)
      }
      assert.deepStrictEqual(yield* Effect.promise(() => client.exited), { code: null, signal: "SIGKILL" })
      // Nothing is left, so a second check passes.
      yield* LeakGuard.check({ serverPath: marker })
    }).pipe(Effect.provide(NodeServices.layer)))
})
