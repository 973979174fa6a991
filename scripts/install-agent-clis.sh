#!/usr/bin/env bash
# Installs the agent CLIs Cairn's tests drive offline, at pinned versions, into a private prefix (about 760 MB).
# Usage: install-agent-clis.sh [PREFIX]  (default ~/.cache/cairn/agent-clis; tests find it there, or via
# CAIRN_AGENT_CLIS=PREFIX). Does nothing when both are already there at these versions. Prints PREFIX last.
set -euo pipefail
CLAUDE_VERSION=2.1.328
CODEX_VERSION=0.169.0
prefix=$(mkdir -p "${1:-$HOME/.cache/cairn/agent-clis}" && cd "${1:-$HOME/.cache/cairn/agent-clis}" && pwd)

installed_version() {
  node -e 'try { console.log(require(process.argv[1]).version) } catch { console.log("") }' "$prefix/node_modules/$1/package.json"
}
codex_binary() {
  compgen -G "$prefix/node_modules/@openai/codex-linux-*/vendor/*/bin/codex" | head -n 1 || true
}

if [ "$(installed_version @anthropic-ai/claude-code)" = "$CLAUDE_VERSION" ] && [ "$(installed_version @openai/codex)" = "$CODEX_VERSION" ] \
  && [ -x "$prefix/node_modules/.bin/claude" ] && [ -n "$(codex_binary)" ]; then
  echo "install-agent-clis: claude-code $CLAUDE_VERSION and codex $CODEX_VERSION already in $prefix" >&2
  echo "$prefix"
  exit 0
fi
# Without a package.json of its own, npm would install into the nearest parent that has one.
[ -f "$prefix/package.json" ] || echo '{ "private": true }' > "$prefix/package.json"
npm install --prefix "$prefix" "@anthropic-ai/claude-code@$CLAUDE_VERSION" "@openai/codex@$CODEX_VERSION" \
  --no-fund --no-audit --save-exact --loglevel=error >&2
[ -x "$prefix/node_modules/.bin/claude" ] || { echo "install-agent-clis: no claude binary in $prefix/node_modules/.bin" >&2; exit 1; }
[ -n "$(codex_binary)" ] || { echo "install-agent-clis: no codex binary under $prefix/node_modules/@openai" >&2; exit 1; }
"$prefix/node_modules/.bin/claude" --version >&2
"$(codex_binary)" --version >&2
echo "$prefix"
