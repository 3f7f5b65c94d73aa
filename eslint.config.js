// ESLint, type-aware: typescript-eslint's type-checked rules read the TypeScript program through the
// project service (tsconfig.json for the .ts files; tsconfig.javascript.json for the page's modules
// and the scripts, which no tsconfig.json includes). The same rules for all three; formatting is Prettier's.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import unicorn from 'eslint-plugin-unicorn';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const PAGE = ['apps/server/public/js/*.js'];
const SCRIPTS = ['scripts/*.mjs', 'packages/db/src/*.mjs', 'apps/cli/bin/*.mjs', 'eslint.config.js'];

export default defineConfig(
  { ignores: ['**/node_modules/', 'dist/', 'tools/', 'migrations/', 'test-artifacts/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: [...PAGE, ...SCRIPTS, 'stryker.config.mjs'],
          defaultProject: 'tsconfig.javascript.json',
          // The page modules and the .mjs scripts: about two dozen files, all typed through one project.
          maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 32,
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { unicorn },
    rules: {
      // The class of bug behind the 2025 tasks/list pollInterval: a function with optional
      // parameters handed to map/forEach/filter receives the index and the array as well.
      'unicorn/no-array-callback-reference': 'error',
      // Strict where it pays: a promise nobody awaits loses its error; a condition that is always
      // true or false hides a wrong type; a switch over a union must name every member.
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test runs every test() and describe() it is handed; nothing awaits them by design.
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unnecessary-condition': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
      // A closure that may run before a variable's one assignment (a timer it clears) needs a let.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // A leading underscore names what is left out on purpose (a rest sibling, an unused argument).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // Passing on a rejection or abort reason as it came (unknown or any) is not inventing a non-Error.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],

      // Off: `any` is this code base's chosen type for untyped JSON (wire answers read in tests and
      // the CLI) and every value of the untyped page modules is any; the no-unsafe-* rules and
      // no-explicit-any would flag those ~1,300 reads without pointing at a defect.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Off: Fastify plugins and route handlers, MCP tool handlers and task handlers are async by
      // contract (they must return a promise) whether or not their body awaits.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: PAGE,
    languageOptions: { globals: globals.browser },
  },
  {
    files: SCRIPTS,
    languageOptions: { globals: globals.node },
  },
);
