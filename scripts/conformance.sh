#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, installed with its own
# Node 22 by scripts/install-node22-tools.sh) against this server started with the conformance
# fixtures: a free loopback port, a fresh temporary database, no auth tokens. Prints every
# scenario's checks, stops the server, and exits non-zero when any scenario fails.
#   scripts/conformance.sh                 # every scenario listed below
#   scripts/conformance.sh tasks-lifecycle # just the ones named (run at the modern revision)
set -uo pipefail
cd "$(dirname "$0")/.."

TOOLS=tools/node22/node_modules/.bin
[ -x "$TOOLS/node" ] && [ -e "$TOOLS/conformance" ] || bash scripts/install-node22-tools.sh >&2 || exit 1

EXPECTED=scripts/conformance-expected-failures.yml
MODERN=2026-07-28
LEGACY=2025-11-25
EXT=extension # extension scenarios are off the spec timeline: run without --spec-version
# "scenario spec-version": every tasks-* scenario, the 2026-07-28 transport and tool scenarios, and
# the 2025-era ones this server also serves. Reasons for anything left out are in docs/protocol.md ("Conformance").
SCENARIOS=(
  "tasks-lifecycle $EXT"
  "tasks-capability-negotiation $EXT"
  "tasks-wire-fields $EXT"
  "tasks-request-state-removal $EXT"
  "tasks-mrtr-input $EXT"
  "tasks-request-headers $EXT"
  "tasks-dispatch-and-envelope $EXT"
  "tasks-status-notifications $EXT"
  "tasks-required-task-error $EXT"
  "tasks-mrtr-composition $EXT"
  "server-stateless $MODERN"
  "tools-list $MODERN"
  "json-schema-2020-12 $MODERN"
  "dns-rebinding-protection $MODERN"
  "http-header-validation $MODERN"
  "http-custom-header-server-validation $MODERN"
  "server-initialize $LEGACY"
  "tools-call-with-progress $LEGACY"
)
# Scenarios the suite itself skips without running a check (see docs/protocol.md, "Conformance"): reported as
# such, and they fail the run only if they ever do run checks and one fails.
SUITE_SKIPS=" tasks-status-notifications "
if [ $# -gt 0 ]; then
  SCENARIOS=()
  for s in "$@"; do case "$s" in tasks-*) SCENARIOS+=("$s $EXT") ;; *) SCENARIOS+=("$s $MODERN") ;; esac; done
fi

work=$(mktemp -d)
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
MCP_CONFORMANCE_FIXTURES=1 PORT="$port" HOST=127.0.0.1 DATABASE_PATH="$work/conformance.db" WORKERS=4 \
  LOG_LEVEL=warn SHUTDOWN_GRACE_MS=0 node_modules/.bin/tsx apps/server/src/server.ts >"$work/server.log" 2>&1 &
server=$!
stop() {
  kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$work"
}
trap stop EXIT

url="http://127.0.0.1:$port/mcp"
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; echo "the server did not start" >&2; exit 1; }
  sleep 0.2
done

failed=()
skipped=()
baseline=()
for entry in "${SCENARIOS[@]}"; do
  read -r scenario version <<<"$entry"
  echo "== $scenario ($version)"
  args=(server --url "$url" --scenario "$scenario" --timeout 60000)
  [ "$version" = "$EXT" ] || args+=(--spec-version "$version")
  # Only scenarios with an entry get the baseline: with one, the suite also counts warnings as failures.
  grep -q "^  - $scenario\(:\|\$\)" "$EXPECTED" && args+=(--expected-failures "$EXPECTED")
  "$TOOLS/node" "$TOOLS/conformance" "${args[@]}" 2>&1 | tee "$work/scenario.log"
  status=${PIPESTATUS[0]}
  # A scenario that ran no check proved nothing: it fails, unless the suite itself skips it (listed).
  if [ "$status" -ne 0 ] || grep -q "^SKIPPED: scenario" "$work/scenario.log" || ! grep -q "^Passed: " "$work/scenario.log"; then
    failed+=("$scenario")
  elif grep -q "Expected failures (in baseline)" "$work/scenario.log"; then
    baseline+=("$scenario")
  elif grep -q "^Passed: 0/0" "$work/scenario.log"; then
    if [[ "$SUITE_SKIPS" == *" $scenario "* ]]; then skipped+=("$scenario"); else failed+=("$scenario"); fi
  fi
done

version=$("$TOOLS/node" -p "require('./tools/node22/node_modules/@modelcontextprotocol/conformance/package.json').version")
passed=$(( ${#SCENARIOS[@]} - ${#failed[@]} - ${#skipped[@]} ))
echo "== conformance (@modelcontextprotocol/conformance $version): $passed of ${#SCENARIOS[@]} scenarios passed${baseline[*]:+ (with expected failures from $EXPECTED: ${baseline[*]})}${skipped[*]:+; skipped by the suite itself: ${skipped[*]}}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed: ${failed[*]}" >&2
  echo "-- server log (last 40 lines)" >&2
  tail -40 "$work/server.log" >&2
  exit 1
fi
