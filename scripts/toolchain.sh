#!/usr/bin/env bash
# Provision the project's toolchain: Node >= 22.18 and the pinned pnpm.
#
# When the `node` on PATH is older than 22.18, Node 22 is installed from the npm registry (the `node`
# package ships a real binary). pnpm is installed at the version pinned by `packageManager` in
# package.json, without corepack. Both go into a cache shared by every clone of the project:
#   ${MCP_FLEET_TOOLCHAIN_CACHE:-${XDG_CACHE_HOME:-~/.cache}/mcp-fleet/toolchain}/node-<v>-pnpm-<v>
# one folder per pair of versions, filled in a temporary folder and renamed into place, so two clones
# (or two shells) provisioning at once never see a half-installed toolchain.
#
# Prints one line on stdout: the folder to put first on PATH. Progress (only when installing) goes to stderr.
#   export PATH="$(bash scripts/toolchain.sh):$PATH"
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node_version="22.23.3"
pnpm_version="$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$root/package.json")"
[ -n "$pnpm_version" ] || { echo "toolchain: no pnpm version in package.json packageManager" >&2; exit 1; }
cache_root="${MCP_FLEET_TOOLCHAIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-fleet/toolchain}"

# Node >= 22.18 runs TypeScript files natively (type stripping), which the CLI, examples and scripts rely on.
recent() { "$1" -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 18) ? 0 : 1)' 2>/dev/null; }

# With a recent enough machine node, only pnpm is provisioned; otherwise Node 22 as well.
if command -v node >/dev/null 2>&1 && recent node; then
  dir="$cache_root/pnpm-$pnpm_version"
  want=("pnpm@$pnpm_version")
else
  dir="$cache_root/node-$node_version-pnpm-$pnpm_version"
  want=("node@$node_version" "pnpm@$pnpm_version")
fi
bin="$dir/node_modules/.bin"

if ! [ -x "$bin/pnpm" ]; then
  command -v npm >/dev/null 2>&1 || { echo "toolchain: npm is needed to provision ${want[*]} (install Node >= 18 with npm)" >&2; exit 1; }
  echo "toolchain: installing ${want[*]} into $dir" >&2
  mkdir -p "$cache_root"
  tmp="$(mktemp -d "$cache_root/.install.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  echo '{"name":"mcp-fleet-toolchain","private":true}' > "$tmp/package.json"
  npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error "${want[@]}" >&2
  # Another process may have finished first: keep its folder, drop ours.
  if ! [ -e "$dir" ]; then mv "$tmp" "$dir" 2>/dev/null || true; fi
  echo "toolchain: node $(PATH="$bin:$PATH" node --version), pnpm $(PATH="$bin:$PATH" pnpm --version)" >&2
fi
[ -x "$bin/pnpm" ] || { echo "toolchain: $bin/pnpm is missing after the install" >&2; exit 1; }
if [ -x "$bin/node" ]; then
  "$bin/node" --version >/dev/null || { echo "toolchain: $bin/node does not run" >&2; exit 1; }
fi
echo "$bin"
