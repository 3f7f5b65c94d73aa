// Stryker ignorers for mutants already shown to be equivalent (docs/testing.md, "Survivors, and
// why each is equivalent"): they are not run, because each would only survive again after running
// every test file that covers it (a third of a run's time went to them). They still count as
// undetected in the score (scripts/mutation.mjs), so the score is the same as if they had run.
// Only whole patterns are ignored, never a line by number, so a change of the code is judged anew.
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

export const IMMEDIATE =
  "equivalent in one process: better-sqlite3 runs a transaction synchronously, so BEGIN IMMEDIATE and BEGIN DEFERRED can't differ";
/** Reasons of the ignorers here, which the score counts as undetected. */
export const EQUIVALENT_REASONS = [IMMEDIATE];

/** `{ behavior: 'immediate' }`, drizzle's option for a better-sqlite3 transaction. */
function isImmediateOption(node) {
  return (
    node.type === 'ObjectExpression' &&
    node.properties.length === 1 &&
    node.properties[0].key?.name === 'behavior' &&
    node.properties[0].value?.value === 'immediate'
  );
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'reflow-immediate', {
    shouldIgnore: (path) => (isImmediateOption(path.node) ? IMMEDIATE : undefined),
  }),
];
