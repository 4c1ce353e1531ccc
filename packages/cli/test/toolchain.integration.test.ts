/**
 * Issue 26, item 9: `./fleet demo` in a fresh clone, on a machine whose Node is too old, provisions Node 22 and pnpm
 * (`scripts/toolchain.sh`) and says what it is doing while the download runs: which step, what npm fetched, and the
 * bytes written so far. A copy of the wrapper and its files runs with a PATH of stand-ins: an old `node`, and an `npm`
 * that logs a fetch as npm's http log does, writes 3 MB, and waits until the test has seen a progress line with a
 * byte count before it finishes (the test latches on that line; no sleep decides anything).
 */
import { spawn } from "node:child_process"
import { chmod, copyFile, mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { TestContext } from "vitest"
import { describe, expect, it } from "vitest"
import { tempDir } from "./CliProcess.ts"

const root = fileURLToPath(new URL("../../../", import.meta.url))

const executable = async (path: string, text: string) => {
  await writeFile(path, text)
  await chmod(path, 0o755)
}

/** A clone with only what `./fleet` reads, and a bin folder of stand-ins for the machine's node and npm. */
const fresh = async (ctx: TestContext) => {
  const dir = await tempDir(ctx)
  const clone = join(dir, "clone")
  await mkdir(join(clone, "scripts"), { recursive: true })
  for (const file of ["fleet", "scripts/toolchain.sh", "package.json", "pnpm-lock.yaml", "pnpm-workspace.yaml"]) {
    await copyFile(join(root, file), join(clone, file))
  }
  const bin = join(dir, "bin")
  await mkdir(bin)
  // The machine's Node: too old for the sources (toolchain.sh's check fails), as Node 18 would be.
  await executable(join(bin, "node"), "#!/bin/sh\n[ \"$1\" = --version ] && { echo v18.20.0; exit 0; }\nexit 1\n")
  const release = join(dir, "release")
  // npm: `config get registry`, and `install --prefix P … <package>`: npm's http log line for the tarball, 3 MB
  // written into P, then (for node@) a wait for the test's go, and the package's executable in P/node_modules/.bin.
  await executable(
    join(bin, "npm"),
    `#!/bin/sh
if [ "$1" = config ]; then echo "https://registry.example/"; exit 0; fi
prefix=""; package=""
while [ $# -gt 0 ]; do case "$1" in --prefix) prefix="$2"; shift 2 ;; -*) shift ;; *) package="$1"; shift ;; esac; done
name="\${package%@*}"; version="\${package##*@}"
echo "npm http fetch GET 200 https://registry.example/$name/-/$name-$version.tgz 1234ms (cache miss)" >&2
mkdir -p "$prefix/node_modules/.bin" "$prefix/node_modules/$name"
head -c 3145728 /dev/zero > "$prefix/node_modules/$name/blob"
if [ "$name" = node ]; then
  while [ ! -e ${JSON.stringify(release)} ]; do sleep 0.05; done
  printf '#!/bin/sh\\nexec ${process.execPath} "$@"\\n' > "$prefix/node_modules/.bin/node"
else
  printf '#!/bin/sh\\n[ "$1" = --version ] && { echo %s; exit 0; }\\n[ "$1" = install ] && mkdir -p node_modules\\necho "pnpm $*"\\n' "$version" > "$prefix/node_modules/.bin/pnpm"
fi
chmod +x "$prefix/node_modules/.bin/"*
echo "added 1 package in 1s"
`
  )
  return { clone, bin, release, cache: join(dir, "toolchain") }
}

describe("./fleet in a fresh clone with an empty toolchain cache", () => {
  it.concurrent("shows each step, what npm fetched and the bytes written so far while the toolchain downloads", async (ctx) => {
    const { bin, cache, clone, release } = await fresh(ctx)
    const child = spawn("bash", [join(clone, "fleet"), "demo"], {
      cwd: clone,
      env: {
        PATH: `${bin}:/usr/bin:/bin`,
        HOME: clone,
        MCP_FLEET_TOOLCHAIN_CACHE: cache,
        MCP_FLEET_PROGRESS_INTERVAL: "0.2"
      },
      stdio: ["ignore", "pipe", "pipe"],
      // A group of its own, so that everything it started (npm's stand-in included) is stopped with it.
      detached: true
    })
    ctx.onTestFinished(async () => {
      await writeFile(release, "")
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid!, "SIGKILL")
        } catch {
          // Already gone.
        }
      }
    })
    let stderr = ""
    let stdout = ""
    const progress = new Promise<void>((resolve) =>
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk
        if (/step 1 of 2, node@[\d.]+: [1-9]\d* MB on disk so far/.test(stderr)) resolve()
      })
    )
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    const ended = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
    await Promise.race([progress, ended])
    await writeFile(release, "")
    const code = await ended
    expect(code, `${stdout}\n${stderr}`).toBe(0)
    const lines = stderr.split("\n")
    const nodeVersion = /node@([\d.]+)/.exec(stderr)?.[1]
    const pnpmVersion = /pnpm@([\d.]+)/.exec(stderr)?.[1]
    expect(lines[0]).toMatch(/^toolchain: installing node@[\d.]+ pnpm@[\d.]+ into .* \(once: every clone shares it\)$/)
    expect(lines).toContain(`toolchain: step 1 of 2, node@${nodeVersion}: npm install from https://registry.example/`)
    expect(lines).toContain(
      `toolchain: step 1 of 2, node@${nodeVersion}: fetched node-${nodeVersion}.tgz (200, 1234ms)`
    )
    expect(lines.some((l) => /^toolchain: step 1 of 2, node@[\d.]+: [1-9]\d* MB on disk so far, \d+ s$/.test(l))).toBe(
      true
    )
    expect(lines).toContain(`toolchain: step 2 of 2, pnpm@${pnpmVersion}: npm install from https://registry.example/`)
    expect(lines).toContain(
      `toolchain: step 2 of 2, pnpm@${pnpmVersion}: fetched pnpm-${pnpmVersion}.tgz (200, 1234ms)`
    )
    expect(lines).toContain(`toolchain: node ${process.version}, pnpm ${pnpmVersion}`)
    // Then the wrapper goes on: the install, and the demo (here the pnpm stand-in says what it was asked).
    expect(lines).toContain("fleet: pnpm install --frozen-lockfile")
    expect(stdout).toBe("pnpm demo\n")
  })
})
