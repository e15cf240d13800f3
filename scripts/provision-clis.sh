#!/usr/bin/env bash
# Provisions the real agent CLIs the `clis` test stage drives against a scripted model on loopback
# (shared notes: real-agent-clis.md): Claude Code, Codex CLI and Gemini CLI from npm. Idempotent and
# pinned; the cache lives outside the repository so fresh clones (CI) reuse it. A warm run costs
# well under a second; a cold one ~20-60 s and ~700 MB.
#
# Usage: scripts/provision-clis.sh
#   stdout: JSON {"cacheDir","claude","codex","gemini"} with absolute paths. Progress on stderr.
# Environment: PARALLEL_AGENTS_CACHE overrides the cache root.
set -euo pipefail

CLAUDE_VERSION=2.1.332
CODEX_VERSION=0.171.0
GEMINI_VERSION=0.61.0

log() { echo "[provision-clis] $*" >&2; }

cache_root="${PARALLEL_AGENTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parallel-agents}"
key_dir="$cache_root/clis-claude-$CLAUDE_VERSION-codex-$CODEX_VERSION-gemini-$GEMINI_VERSION"
marker="$key_dir/.complete"
bin_dir="$key_dir/node_modules/.bin"

# Prints the first line of `<cli> --version` (offline; HOME kept out of the user's folders).
version_of() {
  local scratch out
  scratch="$(mktemp -d "$key_dir/check.XXXXXX")"
  out="$(HOME="$scratch" TMPDIR="$scratch" CLAUDE_CONFIG_DIR="$scratch" CODEX_HOME="$scratch" \
    DISABLE_AUTOUPDATER=1 "$1" --version 2>/dev/null | head -n1 || true)"
  rm -rf "$scratch"
  echo "$out"
}

install_clis() {
  # npm 11 skips dependencies' install scripts unless allowScripts names them. Claude's postinstall
  # copies its native binary over the 500-byte placeholder bin/claude.exe: allow it. Gemini's
  # optional keytar/node-pty would compile native code it does not need here: deny them.
  cat >"$key_dir/package.json" <<EOF
{
  "name": "parallel-agents-clis",
  "private": true,
  "dependencies": {
    "@anthropic-ai/claude-code": "$CLAUDE_VERSION",
    "@openai/codex": "$CODEX_VERSION",
    "@google/gemini-cli": "$GEMINI_VERSION"
  },
  "allowScripts": {
    "@anthropic-ai/claude-code": true,
    "node-pty": false,
    "@github/keytar": false
  }
}
EOF
  log "installing claude-code@$CLAUDE_VERSION codex@$CODEX_VERSION gemini-cli@$GEMINI_VERSION"
  # claude-code declares engines node>=22 but runs as a native binary: the engine warning is noise.
  (cd "$key_dir" && npm install --no-audit --no-fund --loglevel=error --engine-strict=false >&2)
  local cli want got
  for cli in claude codex gemini; do
    case $cli in
      claude) want=$CLAUDE_VERSION ;;
      codex) want=$CODEX_VERSION ;;
      gemini) want=$GEMINI_VERSION ;;
    esac
    got="$(version_of "$bin_dir/$cli")"
    [[ "$got" == *"$want"* ]] || { log "$cli --version said '$got', expected $want"; exit 1; }
  done
}

provision() {
  [[ -f "$marker" ]] && return 0
  mkdir -p "$cache_root"
  # One installer at a time per cache; a second caller waits and then finds the marker.
  exec 9>"$cache_root/.clis.lock"
  flock 9
  [[ -f "$marker" ]] && return 0
  local started=$SECONDS
  # No marker means nothing in this folder can be trusted (an interrupted install): redo it all.
  rm -rf "$key_dir"
  mkdir -p "$key_dir"
  install_clis
  printf '%s\n' "claude=$CLAUDE_VERSION codex=$CODEX_VERSION gemini=$GEMINI_VERSION installed=$(date -u +%FT%TZ)" >"$marker"
  log "done in $((SECONDS - started)) s"
}

provision
for cli in claude codex gemini; do
  [[ -x "$bin_dir/$cli" ]] || { log "$bin_dir/$cli is missing: delete $key_dir and run again"; exit 1; }
done

node -e 'const [cacheDir, bin] = process.argv.slice(1);
  const path = require("node:path");
  const at = (cli) => path.join(bin, cli);
  console.log(JSON.stringify({ cacheDir, claude: at("claude"), codex: at("codex"), gemini: at("gemini") }));' \
  "$key_dir" "$bin_dir"
