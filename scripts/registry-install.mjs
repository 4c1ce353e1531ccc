#!/usr/bin/env node
// The install-from-a-registry test: the packages as npm would serve them, installed the way a user would.
//
//  1. packs every published package (`pnpm pack`, whose prepack builds) and checks each tarball: a LICENSE,
//     the built code, no tests, no tsconfig, no `catalog:`/`workspace:` specifiers, effect as a range;
//  2. starts a real npm registry (verdaccio, installed once into the toolchain cache) on 127.0.0.1, with
//     fresh storage, proxying every other package to the configured npm registry, and publishes the tarballs;
//  3. `npm i -g @mcp-fleet/cli` into a throwaway prefix: the install must stay under 10 MB with at most one
//     runtime dependency (the CLI is a bundle: effect and the workspace packages are inside it); then runs the
//     installed `mcp-fleet`: `--version`, `demo`, `status` on a config whose server has `env` values (a secret that
//     must not be printed), `serve --http` serving its status page, and `--version` on the machine's own Node when it
//     is older than the CLI needs (one line saying which Node it needs, exit 1);
//  4. a library consumer follows the root README as written (`npm init -y`, `npm pkg set type=module`, the
//     installs, `tsc --init --types node`), saves its example as `fleet.ts`, runs it and type-checks it; beside it a
//     program that calls a server through `@mcp-fleet/manager` passing a `Redacted` env value made by its own
//     `effect` (one copy of effect in the tree).
//
// Every process it starts is stopped by its pid (verdaccio included, also on failure or Ctrl-C), and every
// step is bounded in time. Needs Node >= 22 (verdaccio does), npm and pnpm on PATH: run it through `./fleet`
// or after `export PATH="$(bash scripts/toolchain.sh):$PATH"`.
//
//   node scripts/registry-install.mjs [--keep] [--bench [--runs N]]
//     --keep   leaves the temporary folder for inspection
//     --bench  then measures the installed packages (import cost, mcp-fleet --version and status wall times,
//              the MCP inspector's CLI beside them) and prints a table for BENCHMARKS.md (`pnpm bench:published`)
import { spawn } from "node:child_process"
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { createServer } from "node:net"
import { homedir, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const VERDACCIO = "verdaccio@6.10.4"
const root = join(dirname(fileURLToPath(import.meta.url)), "..")
// Every package the workspace publishes (each folder of packages/ whose package.json is not private), so that a new
// package, or a new dependency between them, can never be missing from the registry.
const PACKAGES = readdirSync(join(root, "packages")).filter((dir) => {
  const manifest = join(root, "packages", dir, "package.json")
  return existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).private !== true
}).sort()
const STEP_TIMEOUT_MS = 5 * 60_000
const keep = process.argv.includes("--keep")
const bench = process.argv.includes("--bench")
const runs = Number(process.argv[process.argv.indexOf("--runs") + 1]) || 11
const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
const started = Date.now()
const work = mkdtempSync(join(tmpdir(), "mcp-fleet-registry-"))
const children = new Set()

const say = (line) => console.log(`registry-install: ${line}`)
const check = (condition, message) => {
  if (!condition) throw new Error(message)
}

// Runs a command to its end (bounded); resolves with its output, rejects on a nonzero exit.
function run(command, args, { cwd = root, env = process.env, timeoutMs = STEP_TIMEOUT_MS, allowFailure } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
    children.add(child)
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.on("error", reject)
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      children.delete(child)
      const result = { code, signal, stdout, stderr }
      if ((code === 0 || allowFailure) && signal === null) resolve(result)
      else {
        reject(new Error(`${command} ${args.join(" ")} exited with ${signal ?? code}\n${stdout}\n${stderr}`))
      }
    })
  })
}

// Stops a child by its pid: SIGTERM, then SIGKILL if it is still there after 10 s.
function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
    child.once("close", () => {
      clearTimeout(timer)
      resolve()
    })
    process.kill(child.pid, "SIGTERM")
  })
}

// Processes still running from the work folder (a server the CLI or the consumer left behind, verdaccio).
async function leftovers() {
  const ps = await run("ps", ["-ww", "-eo", "pid=,args="])
  return ps.stdout.split("\n").filter((line) => line.includes(work) && !line.includes("ps -ww"))
}

async function cleanup() {
  await Promise.all([...children].map(stop))
  const left = await leftovers()
  for (const line of left) process.kill(Number(line.trim().split(/\s+/)[0]), "SIGKILL")
  if (!keep) rmSync(work, { recursive: true, force: true })
  return left
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => cleanup().finally(() => process.exit(1)))
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

// Every `effect` package folder under `dir` (a node_modules tree).
function effectCopies(dir) {
  const found = []
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue
      const path = join(folder, entry.name)
      if (entry.name === "effect" && folder.endsWith("node_modules") && existsSync(join(path, "package.json"))) {
        found.push(path)
      }
      walk(path)
    }
  }
  walk(dir)
  return found
}

// The installed CLI's goals (issue 26): under 10 MB on disk, at most one runtime dependency.
const SIZE_LIMIT_BYTES = 10 * 1024 * 1024
const MAX_RUNTIME_DEPENDENCIES = 1

// The bytes of every file under `dir` (apparent sizes; symbolic links are not followed).
function treeBytes(dir) {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) total += treeBytes(path)
    else total += lstatSync(path).size
  }
  return total
}

// Every installed package under a node_modules tree, as `name@version`.
function installedPackages(modules) {
  const found = []
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === ".bin") continue
      const path = join(folder, entry.name)
      if (entry.name.startsWith("@")) {
        walk(path)
        continue
      }
      const manifest = join(path, "package.json")
      if (existsSync(manifest)) {
        const { name, version } = JSON.parse(readFileSync(manifest, "utf8"))
        found.push(`${name}@${version}`)
      }
      if (existsSync(join(path, "node_modules"))) walk(join(path, "node_modules"))
    }
  }
  walk(modules)
  return found.sort()
}

// The `node` of the machine's own PATH (without any node_modules/.bin folder, such as the provisioned toolchain's),
// and its version; undefined when there is none.
async function machineNode() {
  const path = (process.env.PATH ?? "").split(":").filter((p) => !/\/node_modules\/\.bin\/?$/.test(p)).join(":")
  const found = await run("sh", ["-c", "command -v node"], { env: { ...process.env, PATH: path }, allowFailure: true })
  const node = found.stdout.trim()
  if (found.code !== 0 || node === "") return undefined
  const version = (await run(node, ["--version"], { allowFailure: true })).stdout.trim()
  return { node, version }
}

// verdaccio, installed once per version into the toolchain cache (like Node and pnpm in toolchain.sh).
async function verdaccioBin() {
  const cache = process.env.MCP_FLEET_TOOLCHAIN_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "mcp-fleet", "toolchain")
  const dir = join(cache, VERDACCIO.replace("@", "-"))
  const bin = join(dir, "node_modules", ".bin", "verdaccio")
  if (!existsSync(bin)) {
    say(`installing ${VERDACCIO} into ${dir}`)
    mkdirSync(cache, { recursive: true })
    const tmp = mkdtempSync(join(cache, ".install."))
    writeFileSync(join(tmp, "package.json"), JSON.stringify({ name: "mcp-fleet-verdaccio", private: true }))
    await run("npm", ["install", "--prefix", tmp, "--no-audit", "--no-fund", "--loglevel=error", VERDACCIO])
    if (existsSync(dir)) rmSync(tmp, { recursive: true, force: true })
    else renameSync(tmp, dir)
  }
  return bin
}

async function startRegistry() {
  const port = await freePort()
  const upstream = (await run("npm", ["config", "get", "registry"])).stdout.trim()
  const config = join(work, "verdaccio.yaml")
  writeFileSync(
    config,
    [
      `storage: ${join(work, "storage")}`,
      "uplinks:",
      `  upstream: { url: "${upstream}", timeout: 60s }`,
      "packages:",
      "  '@mcp-fleet/*': { access: $all, publish: $anonymous }",
      "  '**': { access: $all, proxy: upstream }",
      "log: { type: stdout, format: pretty, level: warn }",
      "max_body_size: 100mb",
      ""
    ].join("\n")
  )
  const child = spawn(await verdaccioBin(), ["--config", config, "--listen", `127.0.0.1:${port}`], {
    cwd: work,
    stdio: ["ignore", "pipe", "pipe"]
  })
  children.add(child)
  child.on("close", () => children.delete(child))
  let log = ""
  // Ready when it prints its address; a start that does not get there in 60 s fails the test.
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`verdaccio did not start in 60 s:\n${log}`)), 60_000)
    const onData = (chunk) => {
      log += chunk
      if (log.includes(`http address - http://127.0.0.1:${port}/`)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.on("close", (code) => reject(new Error(`verdaccio exited with ${code}:\n${log}`)))
  })
  say(`verdaccio pid ${child.pid} on http://127.0.0.1:${port}/, proxying ${upstream}`)
  return { url: `http://127.0.0.1:${port}/`, port }
}

// 1. Pack and check the tarballs.
async function pack() {
  const packs = join(work, "packs")
  mkdirSync(packs)
  const tarballs = []
  for (const name of PACKAGES) {
    const cwd = join(root, "packages", name)
    await run("pnpm", ["pack", "--pack-destination", packs], { cwd })
    const manifest = JSON.parse(readFileSync(join(cwd, "package.json"), "utf8"))
    const file = join(packs, `${manifest.name.replace("@", "").replace("/", "-")}-${manifest.version}.tgz`)
    const files = (await run("tar", ["tzf", file])).stdout.trim().split("\n").map((f) => f.replace(/^package\//, ""))
    const packed = JSON.parse((await run("tar", ["xzf", file, "-O", "package/package.json"])).stdout)
    const bad = files.filter((f) => /(^|\/)test\/|\.test\.|(^|\/)tsconfig[^/]*\.json$|\.tsbuildinfo$/.test(f))
    check(bad.length === 0, `${manifest.name}: the tarball ships test or build files: ${bad.join(", ")}`)
    check(files.includes("LICENSE"), `${manifest.name}: the tarball has no LICENSE`)
    check(files.includes("README.md"), `${manifest.name}: the tarball has no README.md`)
    const targets = (e) => (e === null ? [] : typeof e === "string" ? [e] : Object.values(e).flatMap(targets))
    for (const target of Object.values(packed.exports ?? {}).flatMap(targets)) {
      if (!target.includes("*")) {
        check(files.includes(target.replace(/^\.\//, "")), `${manifest.name}: export ${target} is not in the tarball`)
      }
    }
    for (const target of Object.values(packed.bin ?? {})) {
      check(files.includes(target.replace(/^\.\//, "")), `${manifest.name}: bin ${target} is not in the tarball`)
      check(!target.endsWith(".ts"), `${manifest.name}: bin ${target} is TypeScript, which node refuses under node_modules`)
    }
    const specifiers = { ...packed.dependencies, ...packed.peerDependencies }
    for (const [dep, range] of Object.entries(specifiers)) {
      check(!/^(catalog|workspace):/.test(range), `${manifest.name}: ${dep} is still "${range}" in the tarball`)
    }
    if (packed.peerDependencies?.effect !== undefined || packed.dependencies?.effect !== undefined) {
      const range = packed.peerDependencies?.effect ?? packed.dependencies?.effect
      check(range.startsWith("^"), `${manifest.name}: effect is "${range}", not a range`)
    }
    say(`packed ${manifest.name}: ${files.length} files`)
    tarballs.push(file)
  }
  return tarballs
}

async function main() {
  const tarballs = await pack()
  const registry = await startRegistry()
  const npmEnv = {
    ...process.env,
    npm_config_registry: registry.url,
    npm_config_cache: join(work, "npm-cache"),
    [`npm_config_//127.0.0.1:${registry.port}/:_authToken`]: "anonymous",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false"
  }
  for (const tarball of tarballs) await run("npm", ["publish", tarball, "--loglevel=error"], { env: npmEnv })
  say(`published ${tarballs.length} packages`)

  // 3. The CLI, installed globally into a throwaway prefix.
  const prefix = join(work, "global")
  await run("npm", ["install", "--global", "--prefix", prefix, "@mcp-fleet/cli", "--loglevel=error"], {
    env: npmEnv
  })
  const modules = join(prefix, "lib", "node_modules")
  const cliDir = join(modules, "@mcp-fleet", "cli")
  const cliEnv = { ...process.env, PATH: `${join(prefix, "bin")}:${process.env.PATH}` }
  const expected = JSON.parse(readFileSync(join(root, "packages", "cli", "package.json"), "utf8")).version
  const version = await run("mcp-fleet", ["--version"], { env: cliEnv, cwd: work })
  check(version.stdout.includes(expected), `mcp-fleet --version printed ${JSON.stringify(version.stdout)}`)
  say(`mcp-fleet --version: ${version.stdout.trim()}`)
  // The bundle carries effect and the workspace packages: nothing of them is installed, and the rest is small.
  const packages = installedPackages(modules)
  const bytes = treeBytes(modules)
  const megabytes = (bytes / 1024 / 1024).toFixed(1)
  say(`installed: ${megabytes} MB in ${packages.length} packages (${packages.join(", ")})`)
  check(
    packages.length <= 1 + MAX_RUNTIME_DEPENDENCIES,
    `the installed CLI brings ${packages.length - 1} packages, over the goal of ${MAX_RUNTIME_DEPENDENCIES}: ${
      packages.join(", ")
    }`
  )
  check(bytes < SIZE_LIMIT_BYTES, `the installed CLI takes ${megabytes} MB, over the goal of ${SIZE_LIMIT_BYTES / 1024 / 1024} MB`)
  const copies = effectCopies(modules)
  check(copies.length === 0, `the installed CLI has ${copies.length} copies of effect (its bundle has its own)`)

  // On the machine's own Node, when it is older than the CLI needs: one line that says which Node it needs.
  const machine = await machineNode()
  const [major, minor] = (machine?.version ?? "v0.0").slice(1).split(".").map(Number)
  if (machine !== undefined && (major < 22 || (major === 22 && minor < 18))) {
    const old = await run(machine.node, [join(prefix, "bin", "mcp-fleet"), "--version"], {
      cwd: work,
      allowFailure: true
    })
    const lines = old.stderr.trim().split("\n")
    check(
      old.code === 1 && old.stdout === "" && lines.length === 1 &&
        lines[0].startsWith(`mcp-fleet: needs Node >= 22.18, this is ${machine.version}: `),
      `mcp-fleet on ${machine.node} (${machine.version}) did not say in one line which Node it needs (exit ${old.code}):\n${old.stdout}${old.stderr}`
    )
    say(`mcp-fleet on the machine's ${machine.version}: ${lines[0]}`)
  } else {
    say(`the machine's node is ${machine?.version ?? "absent"}: no older Node to check the CLI's message on`)
  }

  const demo = await run("mcp-fleet", ["demo"], { env: cliEnv, cwd: work })
  check(demo.stdout.includes("demo finished."), `mcp-fleet demo did not finish:\n${demo.stdout}\n${demo.stderr}`)
  say("mcp-fleet demo: finished")

  const secret = "s3cret-from-the-registry-test"
  // The fake server the installed CLI carries for its demo.
  const server = join(cliDir, "dist", "fake-server", "server.mjs")
  const config = join(work, "mcp.json")
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        fake: {
          command: process.execPath,
          args: [server],
          env: { API_TOKEN: "${MCP_FLEET_REGISTRY_TEST_SECRET}", PLAIN: "visible" }
        }
      }
    })
  )
  const status = await run("mcp-fleet", ["status", "--config", config], {
    env: { ...cliEnv, MCP_FLEET_REGISTRY_TEST_SECRET: secret },
    cwd: work,
    allowFailure: true
  })
  const statusOutput = `${status.stdout}${status.stderr}`
  check(status.code === 0, `mcp-fleet status exited ${status.code}:\n${statusOutput}`)
  check(/fake: ready/.test(status.stdout), `mcp-fleet status does not show the server ready:\n${statusOutput}`)
  check(!statusOutput.includes(secret), "mcp-fleet status printed the secret env value")
  say(`mcp-fleet status (env with a secret): ${status.stdout.trim().split("\n").at(-1)}`)

  // The gateway's status page travels inside the bundle (issue 31): `serve --http` answers `/` and its script.
  await statusPage({ ...cliEnv, MCP_FLEET_REGISTRY_TEST_SECRET: secret }, config)

  // 4. A library consumer, following the root README as written.
  const consumer = await readmeConsumer(npmEnv)
  if (bench) await benchInstalled({ consumer, cliEnv, npmEnv, server })
}

// The installed `mcp-fleet serve --http` on a free port: its status page and the page's script are served (from the
// bundle: the page is in no file of its own), with the page's Content-Security-Policy; then it is stopped.
async function statusPage(cliEnv, config) {
  const served = spawn("mcp-fleet", ["serve", "--http", "127.0.0.1:0", "--config", config], {
    cwd: work,
    env: cliEnv,
    stdio: ["ignore", "pipe", "pipe"]
  })
  children.add(served)
  served.on("close", () => children.delete(served))
  try {
    let err = ""
    served.stderr.on("data", (chunk) => (err += chunk))
    const url = await new Promise((resolve, reject) => {
      let out = ""
      const timer = setTimeout(() => reject(new Error(`mcp-fleet serve printed no URL in 60 s:\n${out}${err}`)), 60_000)
      served.stdout.on("data", (chunk) => {
        out += chunk
        const line = out.split("\n").find((l) => l.startsWith("{\"url\""))
        if (line !== undefined) {
          clearTimeout(timer)
          resolve(JSON.parse(line).url)
        }
      })
      served.on("close", (code) => reject(new Error(`mcp-fleet serve exited with ${code} before listening:\n${out}${err}`)))
    })
    const origin = new URL(url).origin
    const page = await fetch(`${origin}/`)
    const html = await page.text()
    check(
      page.status === 200 && html.includes("<title>mcp-fleet status</title>") &&
        (page.headers.get("content-security-policy") ?? "").includes("default-src 'self'"),
      `the installed mcp-fleet serve does not serve its status page (${page.status}):\n${html.slice(0, 300)}`
    )
    const script = await fetch(`${origin}/status.js`)
    check(script.ok && (await script.text()).includes("new EventSource("), "the status page's script is not served")
    say(`mcp-fleet serve --http: the status page and its script at ${origin}/, from the installed bundle`)
  } finally {
    await stop(served)
  }
}

// The root README's library section: its sh block, run line by line in a fresh folder (with this registry), and its
// example saved as `fleet.ts`; then `node fleet.ts` and `npx tsc --noEmit`, as it says. Beside the example, a program
// that passes a `Redacted` env value made by the consumer's own effect (one copy of effect in the tree).
async function readmeConsumer(npmEnv) {
  const readme = readFileSync(join(root, "README.md"), "utf8")
  const section = readme.slice(readme.indexOf("## Use the library from an Effect program"))
  const steps = /```sh\n([\s\S]*?)```/.exec(section)?.[1]
  const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1]
  check(steps !== undefined && example !== undefined, "the README's library section has no sh block or no example")
  const home = join(work, "readme")
  mkdirSync(home)
  // The lines as a user types them (comments included), in one shell: `cd` carries over to the next line.
  await run("sh", ["-euc", steps], { cwd: home, env: npmEnv })
  const consumer = join(home, /^mkdir (\S+)/m.exec(steps)?.[1] ?? ".")
  say(`README steps ran in ${consumer}: ${steps.trim().split("\n").length} lines`)
  writeFileSync(join(consumer, "fleet.ts"), example)
  const ran = await run(process.execPath, ["fleet.ts"], { cwd: consumer })
  check(
    ran.stdout.includes("notes/echo answered:") && ran.stdout.includes("search: ready"),
    `the README's example printed:\n${ran.stdout}${ran.stderr}`
  )
  say(`the README's example ran: ${ran.stdout.trim().split("\n")[0]}`)
  writeFileSync(
    join(consumer, "redacted.ts"),
    `import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { serverPath } from "@mcp-fleet/fake-server"
import { McpManager } from "@mcp-fleet/manager"
import { Console, Effect, Layer, Redacted } from "effect"

const Fleet = McpManager.layer({
  servers: { fake: { command: process.execPath, args: [serverPath], env: { TOKEN: Redacted.make("consumer-secret") } } }
}).pipe(Layer.provide(NodeServices.layer))

const program = Effect.gen(function*() {
  const manager = yield* McpManager.McpManager
  yield* manager.waitForReady("fake").pipe(Effect.timeout("30 seconds"))
  const result = yield* manager.call("fake", "echo", { from: "the registry" })
  yield* Console.log("consumer:", JSON.stringify(result.structuredContent))
})

program.pipe(Effect.provide(Fleet), NodeRuntime.runMain)
`
  )
  const copies = effectCopies(join(consumer, "node_modules"))
  check(copies.length === 1, `the consumer has ${copies.length} copies of effect`)
  const redacted = await run(process.execPath, ["redacted.ts"], { cwd: consumer })
  check(
    redacted.stdout.includes(`consumer: {"from":"the registry"}`),
    `the consumer printed:\n${redacted.stdout}${redacted.stderr}`
  )
  say(`library consumer ran: ${redacted.stdout.trim()}`)
  await run("npx", ["tsc", "--noEmit"], { cwd: consumer, env: npmEnv })
  say("the README's example and the consumer type-check (npx tsc --noEmit, the tsconfig of tsc --init --types node)")
  return consumer
}

// ---------------------------------------------------------------------------------------------------------
// --bench: what the published packages cost, measured on the installed copies (numbers for BENCHMARKS.md).
const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
const ms = (x) => x.toFixed(1)

// One whole process, spawn to exit: its wall time and, through /usr/bin/time, its CPU time (user + system), in ms.
// CPU time is what the process itself costs; on a loaded machine its wall time also holds the waiting.
async function wall(command, args, options) {
  const t = process.hrtime.bigint()
  const { stderr } = await run("/usr/bin/time", ["-f", "cpu %U %S", command, ...args], options)
  const wallMs = Number(process.hrtime.bigint() - t) / 1e6
  const cpu = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(stderr)
  check(cpu !== null, `no CPU time from /usr/bin/time for ${command}`)
  return { wallMs, cpuMs: (Number(cpu[1]) + Number(cpu[2])) * 1000 }
}

async function benchInstalled({ consumer, cliEnv, npmEnv, server }) {
  const rows = []
  const measure = async (label, once) => {
    await once() // warm-up: the file system cache
    const samples = []
    for (let i = 0; i < runs; i++) samples.push(await once())
    const wallMs = samples.map((x) => x.wallMs)
    const cpuMs = samples.map((x) => x.cpuMs)
    const row = { label, wall: median(wallMs), wallMin: Math.min(...wallMs), cpu: median(cpuMs) }
    rows.push(row)
    say(`bench: ${label}: wall median ${ms(row.wall)} ms (min ${ms(row.wallMin)}), CPU median ${ms(row.cpu)} ms`)
  }
  // Import cost inside a fresh node process, as the bench's import cell times it, plus the CPU it took.
  const importScript = (modules) =>
    `const t = performance.now(); const c = process.cpuUsage(); for (const m of ${JSON.stringify(modules)}) await import(m);` +
    ` const u = process.cpuUsage(c); process.stdout.write(JSON.stringify({ wallMs: performance.now() - t, cpuMs: (u.user + u.system) / 1000 }))`
  const timedImport = (modules) => async () =>
    JSON.parse((await run(process.execPath, ["--input-type=module", "-e", importScript(modules)], { cwd: consumer })).stdout)
  await measure(
    "import @mcp-fleet/transport + @effect/platform-node/NodeServices (in process)",
    timedImport(["@mcp-fleet/transport", "@effect/platform-node/NodeServices"])
  )
  await measure(
    "import @mcp-fleet/transport + @effect/platform-node/NodeChildProcessSpawner (in process)",
    timedImport(["@mcp-fleet/transport", "@effect/platform-node/NodeChildProcessSpawner"])
  )
  const fast = join(work, "fast.json")
  writeFileSync(fast, JSON.stringify({ mcpServers: { fast: { command: process.execPath, args: [server] } } }))
  await measure("mcp-fleet --version (whole process)", () => wall("mcp-fleet", ["--version"], { env: cliEnv, cwd: work }))
  await measure(
    "mcp-fleet status, one fast server (whole process)",
    () => wall("mcp-fleet", ["status", "--config", fast], { env: cliEnv, cwd: work })
  )
  // The MCP inspector's CLI on the same server, installed from the registry (not timed: the install).
  const inspector = join(work, "inspector")
  mkdirSync(inspector)
  writeFileSync(join(inspector, "package.json"), JSON.stringify({ name: "inspector-bench", private: true }))
  const installed = await run("npm", ["install", "--loglevel=error", INSPECTOR], {
    cwd: inspector,
    env: npmEnv,
    allowFailure: true
  })
  if (installed.code !== 0) {
    say(`bench: ${INSPECTOR} did not install (exit ${installed.code}); its rows are left out`)
  } else {
    const inspectorArgs = ["--cli", process.execPath, server, "--method", "tools/list"]
    const listed = await run(join(inspector, "node_modules", ".bin", "mcp-inspector"), inspectorArgs, { cwd: inspector })
    check(listed.stdout.includes("echo"), `the inspector's tools/list did not list echo:\n${listed.stdout}`)
    const bin = join(inspector, "node_modules", ".bin", "mcp-inspector")
    await measure(`${INSPECTOR} --cli … --method tools/list, installed bin (whole process)`, () =>
      wall(bin, inspectorArgs, { cwd: inspector }))
    await measure(`npx ${INSPECTOR} --cli … --method tools/list, already installed (whole process)`, () =>
      wall("npx", ["--no-install", INSPECTOR, ...inspectorArgs], { cwd: inspector, env: npmEnv }))
  }
  const load = (await run("cat", ["/proc/loadavg"], { allowFailure: true })).stdout.split(" ").slice(0, 3).join(" ")
  console.log(`\n| measured (Node ${process.version}, ${runs} runs after one warm-up; load ${load}) | wall median ms | wall min ms | CPU median ms |`)
  console.log("| --- | ---: | ---: | ---: |")
  for (const row of rows) console.log(`| ${row.label} | ${ms(row.wall)} | ${ms(row.wallMin)} | ${ms(row.cpu)} |`)
  console.log("")
}

try {
  await main()
  say(`done in ${Math.round((Date.now() - started) / 1000)} s`)
} catch (error) {
  console.error(`registry-install: FAILED: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
} finally {
  const left = await cleanup()
  if (left.length > 0) {
    console.error(`registry-install: FAILED: processes were left running (now killed):\n${left.join("\n")}`)
    process.exitCode = 1
  }
  if (keep) say(`kept ${work}`)
}
