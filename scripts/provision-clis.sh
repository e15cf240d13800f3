#!/usr/bin/env bash
# Provisions the real agent CLIs the `clis` test stage drives against a scripted model on loopback
# (shared notes: real-agent-clis.md): Claude Code, Codex CLI, Gemini CLI, Copilot CLI and OpenCode
# from npm. Idempotent and pinned; the cache lives outside the repository so fresh clones (CI) reuse
# it. A warm run costs well under a second; a cold one ~30-90 s and ~1.5 GB on disk (Copilot's and
# OpenCode's native binaries add ~400 MB of it; each first Copilot run in a new HOME also unpacks
# ~235 MB there, which the tests' throwaway HOMEs delete again).
#
# Usage: scripts/provision-clis.sh
#   stdout: JSON {"cacheDir","claude","codex","gemini","copilot","opencode"} with absolute paths.
#   Progress on stderr.
# Environment: PARALLEL_AGENTS_CACHE overrides the cache root.
set -euo pipefail

CLAUDE_VERSION=2.1.332
CODEX_VERSION=0.171.0
GEMINI_VERSION=0.61.0
COPILOT_VERSION=1.0.102
OPENCODE_VERSION=1.18.33

log() { echo "[provision-clis] $*" >&2; }

cache_root="${PARALLEL_AGENTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parallel-agents}"
key_dir="$cache_root/clis-claude-$CLAUDE_VERSION-codex-$CODEX_VERSION-gemini-$GEMINI_VERSION"
key_dir+="-copilot-$COPILOT_VERSION-opencode-$OPENCODE_VERSION"
marker="$key_dir/.complete"
bin_dir="$key_dir/node_modules/.bin"
clis=(claude codex gemini copilot opencode)

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
  # npm 11 skips dependencies' install scripts unless allowScripts names them. Claude's and
  # OpenCode's postinstalls put the platform's native binary in place of a placeholder
  # (bin/claude.exe, bin/opencode.exe): allow them. Copilot needs no script: its native binary is
  # the optional dependency @github/copilot-<platform>, which its node wrapper runs. Gemini's
  # optional keytar/node-pty would compile native code it does not need here: deny them.
  cat >"$key_dir/package.json" <<EOF
{
  "name": "parallel-agents-clis",
  "private": true,
  "dependencies": {
    "@anthropic-ai/claude-code": "$CLAUDE_VERSION",
    "@openai/codex": "$CODEX_VERSION",
    "@google/gemini-cli": "$GEMINI_VERSION",
    "@github/copilot": "$COPILOT_VERSION",
    "opencode-ai": "$OPENCODE_VERSION"
  },
  "allowScripts": {
    "@anthropic-ai/claude-code": true,
    "opencode-ai": true,
    "node-pty": false,
    "@github/keytar": false
  }
}
EOF
  log "installing claude-code@$CLAUDE_VERSION codex@$CODEX_VERSION gemini-cli@$GEMINI_VERSION" \
    "copilot@$COPILOT_VERSION opencode-ai@$OPENCODE_VERSION"
  # claude-code declares engines node>=22 but runs as a native binary: the engine warning is noise.
  (cd "$key_dir" && npm install --no-audit --no-fund --loglevel=error --engine-strict=false >&2)
  local cli want got
  for cli in "${clis[@]}"; do
    case $cli in
      claude) want=$CLAUDE_VERSION ;;
      codex) want=$CODEX_VERSION ;;
      gemini) want=$GEMINI_VERSION ;;
      copilot) want=$COPILOT_VERSION ;;
      opencode) want=$OPENCODE_VERSION ;;
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
  printf '%s\n' "claude=$CLAUDE_VERSION codex=$CODEX_VERSION gemini=$GEMINI_VERSION" \
    "copilot=$COPILOT_VERSION opencode=$OPENCODE_VERSION installed=$(date -u +%FT%TZ)" >"$marker"
  log "done in $((SECONDS - started)) s"
}

provision
for cli in "${clis[@]}"; do
  [[ -x "$bin_dir/$cli" ]] || { log "$bin_dir/$cli is missing: delete $key_dir and run again"; exit 1; }
done

node -e 'const [cacheDir, bin, ...clis] = process.argv.slice(1);
  const path = require("node:path");
  console.log(JSON.stringify({ cacheDir, ...Object.fromEntries(clis.map((cli) => [cli, path.join(bin, cli)])) }));' \
  "$key_dir" "$bin_dir" "${clis[@]}"
