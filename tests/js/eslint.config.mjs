// ESLint's flat config for the project's JavaScript (js/, web/demo, tests/js, bench/js, examples/): eslint's recommended rules, with each folder's globals; scripts/test_js.sh runs it from the repository root.
import js from '@eslint/js';
import globals from 'globals';

export default [
  {
    // Paths below are relative to the repository, not to this folder.
    basePath: '../..',
  },
  {
    ignores: ['**/node_modules/**', 'build/**', 'js/dist/**', 'web/demo/vendor/**', 'tests/js/output/**'],
  },
  {
    files: ['js/**/*.{mjs,cjs,js}', 'web/demo/*.mjs', 'tests/js/**/*.{mjs,cjs,js}', 'bench/js/**/*.mjs', 'examples/**/*.{mjs,js}'],
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: 'latest',
      sourceType: 'module',
    },
  },
  {
    // `const { omitted, ...rest } = o` is how a key is left out of a copy.
    rules: { 'no-unused-vars': ['error', { ignoreRestSiblings: true }] },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
  },
  {
    // The package runs in Node, browsers and workers alike; the CLI, tests and benchmarks in Node.
    files: ['js/**/*.mjs', 'tests/js/**/*.mjs', 'bench/js/**/*.mjs', 'web/demo/server.mjs', 'web/demo/vendor.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    // Examples: scripts (.mjs) for Node, pages (.js) for browsers.
    files: ['examples/**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['examples/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
  {
    files: ['web/demo/*.mjs'],
    ignores: ['web/demo/server.mjs', 'web/demo/vendor.mjs'],
    languageOptions: { globals: { ...globals.browser, ...globals.worker } },
  },
];
