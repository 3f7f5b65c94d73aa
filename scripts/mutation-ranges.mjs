// The mutation run's targets named by file and function, turned into the `file:from-to` line
// ranges Stryker's `mutate` takes, when the run starts: the TypeScript compiler API finds each
// named function in the code as it is now, so an edit above it cannot shift the range onto other
// code. `npm run test:mutation -- --list` lists the ranges stryker.config.mjs asks for.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';

/**
 * @typedef {{ file: string, functions?: string[] }} MutateTarget
 * `functions` are qualified names: `TaskEngine.create`, `TaskEngine.#sweep` (a class's members),
 * `inputQueries` (a function or const), `taskClaimQueries.claimNext` (a member of the object a
 * function returns), `SqliteStore.#groups.tasks.createOrFind` (nested deeper). No `functions`: the
 * whole file.
 */

/** The name a declaration gives to what is inside it, or undefined for nodes that name nothing. */
function declaredName(node, source) {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const named =
    ts.isClassDeclaration(node) ||
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isPropertyDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isVariableDeclaration(node) ||
    ts.isPropertyAssignment(node);
  return named && node.name ? node.name.getText(source) : undefined;
}

/** Every named declaration in `text`, by qualified name, with its lines (1-based, doc comment left out). */
export function namedDeclarations(fileName, text) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const line = (pos) => source.getLineAndCharacterOfPosition(pos).line + 1;
  /** @type {Map<string, { from: number, to: number }[]>} */
  const found = new Map();
  const visit = (node, path) => {
    const name = declaredName(node, source);
    const inner = name === undefined ? path : [...path, name];
    if (name !== undefined) {
      const qualified = inner.join('.');
      const lines = { from: line(node.getStart(source)), to: line(node.getEnd()) };
      found.set(qualified, [...(found.get(qualified) ?? []), lines]);
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(source, []);
  return found;
}

/** Stryker `mutate` entries for the targets: whole files as they are, named functions as line ranges. */
export function mutateRanges(targets, root = process.cwd()) {
  return targets.flatMap(({ file, functions }) => {
    if (!functions) return [file];
    let text;
    try {
      text = readFileSync(resolve(root, file), 'utf8');
    } catch (error) {
      throw new Error(`mutation target ${file}: cannot read it (${error.code ?? error.message})`, { cause: error });
    }
    const declared = namedDeclarations(file, text);
    return functions.map((name) => {
      const places = declared.get(name) ?? [];
      if (places.length !== 1) {
        const near = [...declared.keys()].filter((known) => known.endsWith(`.${name.split('.').pop()}`));
        throw new Error(
          `mutation target ${file}: ${places.length === 0 ? 'no declaration' : `${places.length} declarations`} named ${name}` +
            (near.length ? ` (did you mean ${near.join(', ')}?)` : ''),
        );
      }
      return `${file}:${places[0].from}-${places[0].to}`;
    });
  });
}

/** `file#Name` (a target named by function, as `--mutate` takes it) or Stryker's own `file[:from-to]`. */
export function resolveMutateArgument(entry, root = process.cwd()) {
  const at = entry.indexOf('#', entry.lastIndexOf('/'));
  if (at < 0) return entry;
  return mutateRanges([{ file: entry.slice(0, at), functions: [entry.slice(at + 1)] }], root)[0];
}
