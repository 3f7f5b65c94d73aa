// Stryker ignorers for mutants already shown to be equivalent (docs/testing.md, "Survivors, and
// why each is equivalent"): they are not run, because each would only survive again after running
// every test file that covers it (a third of a run's time went to them). They still count as
// undetected in the score (scripts/mutation.mjs), so the score is the same as if they had run.
// Only whole patterns are ignored, never a line by number, so a change of the code is judged anew.
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

export const LOG_ONLY = 'log only: the mutant changes only what is logged';
export const IMMEDIATE =
  "equivalent in one process: better-sqlite3 runs a transaction synchronously, so BEGIN IMMEDIATE and BEGIN DEFERRED can't differ";
/** Reasons of the ignorers here, which the score counts as undetected. */
export const EQUIVALENT_REASONS = [LOG_ONLY, IMMEDIATE];

const LOG_METHODS = new Set(['info', 'warn', 'error', 'debug', 'trace', 'fatal', 'child']);

/** `log.warn(…)`, `logger.child(…)`, `this.#o.logger.error(…)`: a call of a logger's method. */
function isLogCall(node) {
  if (node?.type !== 'CallExpression' || node.callee.type !== 'MemberExpression') return false;
  const { object, property } = node.callee;
  if (property.type !== 'Identifier' || !LOG_METHODS.has(property.name)) return false;
  const owner =
    object.type === 'Identifier' ? object.name : object.type === 'MemberExpression' ? object.property.name : '';
  return owner === 'log' || owner === 'logger';
}

const isLogStatement = (node) => node?.type === 'ExpressionStatement' && isLogCall(node.expression);

function logOnly(node) {
  switch (node.type) {
    case 'CallExpression':
      return isLogCall(node);
    // A callback that only logs (`.catch((error) => log.warn(…))`).
    case 'ArrowFunctionExpression':
      return isLogCall(node.body) || (node.body.type === 'BlockStatement' && logOnly(node.body));
    // A block that only logs (a catch that reports and goes on).
    case 'BlockStatement':
      return node.body.length > 0 && node.body.every((statement) => isLogStatement(statement));
    // `if (swept) log.info(…)`: the condition decides only whether a line is logged.
    case 'IfStatement':
      return !node.alternate && (isLogStatement(node.consequent) || logOnly(node.consequent));
    default:
      return false;
  }
}

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
  declareValuePlugin(PluginKind.Ignore, 'reflow-log-only', {
    shouldIgnore: (path) => (logOnly(path.node) ? LOG_ONLY : undefined),
  }),
  declareValuePlugin(PluginKind.Ignore, 'reflow-immediate', {
    shouldIgnore: (path) => (isImmediateOption(path.node) ? IMMEDIATE : undefined),
  }),
];
