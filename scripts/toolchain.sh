#!/usr/bin/env bash
# Provision the project's toolchain: Node >= 22 and the pinned pnpm.
#
# When the `node` on PATH is older than 22.18, Node 22 is installed from the npm registry (the `node`
# package ships a real binary) into .cache/toolchain (ignored by git). pnpm is installed there too,
# at the version pinned by `packageManager` in package.json, without corepack.
#
# Prints one line on stdout: the folder to put first on PATH. Progress goes to stderr.
#   export PATH="$(bash scripts/toolchain.sh):$PATH"
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/.cache/toolchain"
bin="$cache/node_modules/.bin"
node_version="22.23.3"
pnpm_version="$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$root/package.json")"
[ -n "$pnpm_version" ] || { echo "toolchain: no pnpm version in package.json packageManager" >&2; exit 1; }

# Node >= 22.18 runs TypeScript files natively (type stripping), which the CLI, examples and scripts rely on.
recent() { "$1" -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 18) ? 0 : 1)' 2>/dev/null; }

want=()
if [ -x "$bin/node" ] && recent "$bin/node"; then
  : # the cached Node 22 is there
elif command -v node >/dev/null 2>&1 && recent node; then
  : # the machine's node is recent enough
else
  want+=("node@$node_version")
fi
if ! { [ -x "$bin/pnpm" ] && [ "$(PATH="$bin:$PATH" "$bin/pnpm" --version 2>/dev/null)" = "$pnpm_version" ]; }; then
  want+=("pnpm@$pnpm_version")
fi
if [ "${#want[@]}" -gt 0 ]; then
  echo "toolchain: installing ${want[*]} into $cache" >&2
  mkdir -p "$cache"
  [ -f "$cache/package.json" ] || echo '{"name":"mcp-fleet-toolchain","private":true}' > "$cache/package.json"
  npm install --prefix "$cache" --no-audit --no-fund --loglevel=error "${want[@]}" >&2
fi
if [ -x "$bin/node" ]; then
  "$bin/node" --version >/dev/null || { echo "toolchain: $bin/node does not run" >&2; exit 1; }
fi
echo "toolchain: node $(PATH="$bin:$PATH" node --version), pnpm $(PATH="$bin:$PATH" pnpm --version)" >&2
echo "$bin"
