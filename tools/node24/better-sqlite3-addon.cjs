// Preloaded (NODE_OPTIONS=--require) into every Node process of a scripts/test-node24.sh run, worker
// threads included (a --require in NODE_OPTIONS reaches them even when they are started with
// `execArgv: []`, which an --import does not). better-sqlite3's addon is built for one Node ABI and
// the project's own build in node_modules is Node 20's: in a process of the ABI that
// REFLOW_SQLITE_ADDON was built for, the addon's require resolves to that build instead. Any other
// process (the Node 22 tools some tests start) is left as it is.
'use strict';
const { registerHooks } = require('node:module');
const { pathToFileURL } = require('node:url');

const addon = process.env.REFLOW_SQLITE_ADDON;
const abi = process.env.REFLOW_SQLITE_ADDON_ABI;
const PROJECT_BUILD = '/node_modules/better-sqlite3/build/Release/better_sqlite3.node';

if (addon && abi === process.versions.modules && typeof registerHooks === 'function') {
  const url = pathToFileURL(addon).href;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      return resolved.url.endsWith(PROJECT_BUILD) ? { ...resolved, url } : resolved;
    },
  });
}
