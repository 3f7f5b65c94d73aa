#!/usr/bin/env bash
# Installs the test tools that need Node 22 (the MCP conformance suite and the MCP Inspector CLI)
# into tools/node22, with their own Node 22 from the npm registry. Kept apart from the project's
# node_modules: a `node` binary in node_modules/.bin would shadow Node 20 in every npm script.
set -euo pipefail
cd "$(dirname "$0")/../tools/node22"
if [ ! -x node_modules/.bin/node ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # The lock lists napi-windows-process-start-time, a Windows-only optional dependency never installed
  # here, because npm 11's `npm ci` refuses a lock without it. Should an npm still disagree with the
  # lock, `npm install` resolves the same tree.
  npm ci --no-audit --no-fund || npm install --no-audit --no-fund
fi
echo "node22 tools: $(node_modules/.bin/node --version) in $(pwd)/node_modules/.bin"
