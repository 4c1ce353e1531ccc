/**
 * The deploy guide's files (docs/deploy): the Compose file and the Kubernetes manifests parse (the `yaml` package)
 * and hold the fields the deployment relies on; `haproxy -c` accepts the HAProxy config with the Compose file's
 * environment; and that config, run by a real haproxy in front of three stand-in replicas, balances round robin
 * with no stickiness, takes a replica whose /readyz fails out and back in (latched on haproxy's own log lines), and
 * passes an SSE stream through unbuffered. docs/deploy.md shows each file as it is.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Daemons } from "@mcp-fleet/testing"
import { Effect, Stream } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import * as Path from "node:path"
import { parseAllDocuments, parseDocument } from "yaml"

const root = Path.join(import.meta.dirname, "..", "..", "..", "..")
const deploy = Path.join(root, "docs", "deploy")
const read = (file: string) => readFileSync(Path.join(deploy, file), "utf8")

/** Parses YAML (merge keys on, as Compose reads them); fails the test on any error or warning. */
const parseYaml = (file: string): unknown => {
  const document = parseDocument(read(file), { merge: true })
  assert.deepStrictEqual([...document.errors, ...document.warnings].map((e) => e.message), [], file)
  return document.toJS()
}
const parseManifests = (file: string): ReadonlyArray<Record<string, unknown>> => {
  const documents = parseAllDocuments(read(file))
  if (!Array.isArray(documents)) return assert.fail(`${file}: not a YAML stream`)
  for (const document of documents) {
    assert.deepStrictEqual([...document.errors, ...document.warnings].map((e) => e.message), [], file)
  }
  return documents.map((document) => record(document.toJS(), file))
}

const record = (value: unknown, what: string): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value))
    : assert.fail(`${what} is not a mapping`)
const list = (value: unknown, what: string): ReadonlyArray<unknown> =>
  Array.isArray(value) ? value : assert.fail(`${what} is not a list`)
const strings = (value: unknown, what: string): ReadonlyArray<string> =>
  list(value, what).map((item) => (typeof item === "string" ? item : assert.fail(`${what} holds a non-string`)))
/** The value after `flag` in an argument list. */
const flagValue = (args: ReadonlyArray<string>, flag: string): string => {
  const index = args.indexOf(flag)
  return index >= 0 && index + 1 < args.length ? args[index + 1]! : assert.fail(`no ${flag} in ${args.join(" ")}`)
}

/** The Compose file's HAProxy environment. */
const composeHaproxyEnv = (): Record<string, string> => {
  const services = record(record(parseYaml("compose.yaml"), "compose").services, "services")
  const env = record(record(services.haproxy, "haproxy").environment, "haproxy.environment")
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]))
}

describe("the deploy guide's files", () => {
  it("compose.yaml: three gateway replicas with --redis and the session key secret, Redis append-only, HAProxy", () => {
    const compose = record(parseYaml("compose.yaml"), "compose")
    const services = record(compose.services, "services")
    const gateways = Object.keys(services).filter((name) => name.startsWith("gateway-")).sort()
    assert.deepStrictEqual(gateways, ["gateway-1", "gateway-2", "gateway-3"])
    const secrets = record(compose.secrets, "secrets")
    assert.strictEqual(record(secrets["session-key"], "secrets.session-key").file, "./session-key")
    const addresses: Array<string> = []
    for (const name of gateways) {
      const service = record(services[name], name)
      const command = strings(service.command, `${name}.command`)
      assert.include(command, "serve")
      assert.strictEqual(flagValue(command, "--redis"), "redis://redis:6379")
      assert.strictEqual(flagValue(command, "--session-key-file"), "/run/secrets/session-key")
      assert.deepStrictEqual(strings(service.secrets, `${name}.secrets`), ["session-key"])
      const port = flagValue(command, "--http").split(":").at(-1)
      addresses.push(`${name}:${port}`)
      assert.strictEqual(
        record(record(service.depends_on, `${name}.depends_on`).redis, "depends_on.redis").condition,
        "service_healthy"
      )
    }
    const redis = record(services.redis, "redis")
    assert.strictEqual(flagValue(strings(redis.command, "redis.command"), "--appendonly"), "yes")
    const haproxy = record(services.haproxy, "haproxy")
    assert.include(strings(haproxy.volumes, "haproxy.volumes"), "./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro")
    const env = composeHaproxyEnv()
    assert.deepStrictEqual([env.GATEWAY_1, env.GATEWAY_2, env.GATEWAY_3], addresses)
    assert.deepStrictEqual(strings(haproxy.ports, "haproxy.ports"), [`${env.HAPROXY_BIND?.split(":")[1]}:8080`])
  })

  it("k8s: a Deployment of 3 ready on /readyz, the session key from a Secret volume, a Service without affinity", () => {
    const manifests = parseManifests("k8s/gateway.yaml")
    const byKind = (kind: string) => manifests.filter((m) => m.kind === kind)
    const [secret] = byKind("Secret")
    const [deployment] = byKind("Deployment")
    const [service] = byKind("Service")
    const [configMap] = byKind("ConfigMap")
    if (secret === undefined || deployment === undefined || service === undefined || configMap === undefined) {
      return assert.fail("a Secret, a ConfigMap, a Deployment and a Service")
    }
    const spec = record(deployment.spec, "deployment.spec")
    assert.strictEqual(spec.replicas, 3)
    const podLabels = record(record(record(spec.template, "template").metadata, "template.metadata").labels, "labels")
    assert.deepStrictEqual(record(record(spec.selector, "selector").matchLabels, "matchLabels"), podLabels)
    const podSpec = record(record(spec.template, "template").spec, "template.spec")
    const [container] = list(podSpec.containers, "containers").map((c) => record(c, "container"))
    if (container === undefined) return assert.fail("no container")
    const args = strings(container.args, "args")
    assert.include(args, "serve")
    assert.match(flagValue(args, "--redis"), /^redis:\/\/mcp-fleet-redis:6379$/)
    const [port] = list(container.ports, "ports").map((p) => record(p, "port"))
    assert.strictEqual(String(port?.containerPort), flagValue(args, "--http").split(":").at(-1))
    const readiness = record(record(container.readinessProbe, "readinessProbe").httpGet, "readinessProbe.httpGet")
    assert.deepStrictEqual([readiness.path, readiness.port], ["/readyz", port?.name])
    const liveness = record(record(container.livenessProbe, "livenessProbe").httpGet, "livenessProbe.httpGet")
    assert.strictEqual(liveness.path, "/healthz")
    // The key file is the Secret's key, mounted where --session-key-file points.
    const keyFile = flagValue(args, "--session-key-file")
    const mounts = list(container.volumeMounts, "volumeMounts").map((m) => record(m, "volumeMount"))
    const mount = mounts.find((m) => keyFile.startsWith(`${String(m.mountPath)}/`))
    if (mount === undefined) return assert.fail(`nothing is mounted at ${keyFile}`)
    const volume = list(podSpec.volumes, "volumes").map((v) => record(v, "volume")).find((v) => v.name === mount.name)
    const secretVolume = record(volume?.secret, "volume.secret")
    const secretMetadata = record(secret.metadata, "secret.metadata")
    assert.strictEqual(secretVolume.secretName, secretMetadata.name)
    assert.property(record(secret.stringData, "secret.stringData"), Path.basename(keyFile))
    // The config file is the ConfigMap's key.
    const configFile = flagValue(args, "--config")
    const configMount = mounts.find((m) => configFile.startsWith(`${String(m.mountPath)}/`))
    const configVolume = list(podSpec.volumes, "volumes").map((v) => record(v, "volume"))
      .find((v) => v.name === configMount?.name)
    assert.strictEqual(record(configVolume?.configMap, "configMap").name, record(configMap.metadata, "cm").name)
    assert.property(record(configMap.data, "configMap.data"), Path.basename(configFile))
    // The Service reaches the pods, on their port, with no session affinity.
    const serviceSpec = record(service.spec, "service.spec")
    assert.deepStrictEqual(record(serviceSpec.selector, "service.selector"), podLabels)
    assert.strictEqual(serviceSpec.sessionAffinity, "None")
    const [servicePort] = list(serviceSpec.ports, "service.ports").map((p) => record(p, "service port"))
    assert.strictEqual(servicePort?.targetPort, port?.name)
    // Redis: the Service the gateway's URL names, selecting the StatefulSet's pods.
    const redis = parseManifests("k8s/redis.yaml")
    const redisService = redis.find((m) => m.kind === "Service")
    const statefulSet = redis.find((m) => m.kind === "StatefulSet")
    assert.strictEqual(record(redisService?.metadata, "redis service").name, "mcp-fleet-redis")
    const redisLabels = record(
      record(record(record(statefulSet?.spec, "sts").template, "sts.template").metadata, "sts.metadata").labels,
      "sts.labels"
    )
    assert.deepStrictEqual(record(record(redisService?.spec, "redis spec").selector, "redis selector"), redisLabels)
  })

  it("docs/deploy.md shows each file as it is", () => {
    const guide = readFileSync(Path.join(root, "docs", "deploy.md"), "utf8")
    for (const file of ["haproxy.cfg", "compose.yaml", "k8s/gateway.yaml", "k8s/redis.yaml"]) {
      const marker = `<!-- file: docs/deploy/${file} -->`
      const at = guide.indexOf(marker)
      assert.isTrue(at >= 0, `the guide includes ${file}`)
      const block = /```[a-z]*\n([\s\S]*?)```/.exec(guide.slice(at + marker.length))
      assert.strictEqual(block?.[1], read(file), `${file} in the guide is the file`)
    }
  })
})

/** A stand-in replica: answers /readyz (200 or 503), /sse (one event, then open) and anything else with its name. */
const standIn = (name: string) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly server: Server; readonly port: number; ready: boolean }>((resume) => {
      const state = { server: createServer(), port: 0, ready: true }
      state.server.on("request", (request, response) => {
        if (request.url === "/readyz") {
          response.writeHead(state.ready ? 200 : 503).end(state.ready ? "ready" : "not ready")
        } else if (request.url === "/sse") {
          response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" })
          response.write(`data: hello from ${name}\n\n`)
        } else {
          response.writeHead(200, { "content-type": "text/plain" }).end(name)
        }
      })
      state.server.listen(0, "127.0.0.1", () => {
        const address = state.server.address()
        state.port = typeof address === "object" && address !== null ? address.port : 0
        resume(Effect.succeed(state))
      })
    }),
    (state) =>
      Effect.callback<void>((resume) => {
        state.server.closeAllConnections()
        state.server.close(() => resume(Effect.void))
      })
  )

describe("the HAProxy config", () => {
  it.live("haproxy -c accepts it with the Compose file's environment", () =>
    Effect.gen(function*() {
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      const handle = yield* spawner.spawn(
        ChildProcess.make("haproxy", ["-c", "-f", Path.join(deploy, "haproxy.cfg")], {
          env: composeHaproxyEnv(),
          extendEnv: true
        })
      )
      const output = yield* Stream.mkString(Stream.decodeText(handle.all))
      assert.strictEqual(yield* handle.exitCode, 0, output)
      assert.include(output, "Configuration file is valid")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("run in front of three replicas: round robin, no stickiness, /readyz takes one out and back, SSE flows", () =>
    Effect.gen(function*() {
      const replicas = yield* Effect.all([standIn("r1"), standIn("r2"), standIn("r3")])
      const proxy = yield* Daemons.haproxy({
        config: Path.join(deploy, "haproxy.cfg"),
        env: (port) => ({
          HAPROXY_BIND: `127.0.0.1:${port}`,
          GATEWAY_1: `127.0.0.1:${replicas[0].port}`,
          GATEWAY_2: `127.0.0.1:${replicas[1].port}`,
          GATEWAY_3: `127.0.0.1:${replicas[2].port}`,
          HAPROXY_CHECK_INTER: "100ms"
        })
      })
      const client = yield* HttpClient.HttpClient
      const mcp = `${proxy.url}/mcp`
      /** Whoever answers a POST that carries a session id and a cookie (a balancer with affinity would pin it). */
      const who = client.execute(
        HttpClientRequest.post(mcp).pipe(
          HttpClientRequest.setHeaders({ "mcp-session-id": "m1.sealed-session", cookie: "SERVERID=gateway-1" })
        )
      ).pipe(Effect.flatMap((response) => response.text), Effect.scoped, Effect.orDie)
      const answers = (n: number) => Effect.all(Array.from({ length: n }, () => who))

      const first = yield* answers(9)
      // Round robin: each replica in turn, whatever the session id or cookie says.
      const start = first.indexOf("r1")
      const rotation = ["r1", "r2", "r3"]
      assert.deepStrictEqual(first, first.map((_, i) => rotation[(i - start + 3 * 9) % 3]))

      // Replica 2's /readyz fails: haproxy takes it out (its own log says so) and no request reaches it.
      const down = yield* proxy.expect(/Server gateways\/gateway-2 is DOWN/)
      replicas[1].ready = false
      yield* down
      const without = yield* answers(6)
      assert.deepStrictEqual([...new Set(without)].sort(), ["r1", "r3"])
      const up = yield* proxy.expect(/Server gateways\/gateway-2 is UP/)
      replicas[1].ready = true
      yield* up
      assert.include(yield* answers(6), "r2")

      // A listen stream goes through as it is written: the first event arrives while the stream stays open.
      const event = yield* client.execute(HttpClientRequest.get(`${proxy.url}/sse`)).pipe(
        Effect.flatMap((response) => response.stream.pipe(Stream.decodeText(), Stream.runHead)),
        Effect.scoped,
        Effect.orDie
      )
      assert.match(event._tag === "Some" ? event.value : "", /^data: hello from r[123]\n\n$/)
    }).pipe(Effect.provide([NodeServices.layer, NodeHttpClient.layerUndici])))
})
