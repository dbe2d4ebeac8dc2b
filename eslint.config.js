// Lint: typescript-eslint's type-aware rules, plus the house boundaries as import rules.
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'path', 'crypto', 'os', 'child_process'];

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'migrations/', 'sdk/dist/', 'eslint.config.js', 'bin/', 'scripts/*.mjs', 'src/main.deno.ts'] },
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // Regular expressions see caller text (queries, case numbers, names, headers): none may backtrack
    // super-linearly (ReDoS), whether matched whole or searched for anywhere in a string.
    files: ['src/**/*.ts', 'workflows/**/*.ts'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
      'regexp/no-super-linear-move': ['error', { ignorePartial: false }],
    },
  },
  {
    // The SDK ships to customers on Node, Deno and browsers: no service code, no Node built-ins.
    files: ['sdk/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [...nodeBuiltins, '**/src/adapters/**', '**/src/application/**', '**/src/http/**', '**/src/domain/**', '**/src/db/**'] }] },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...nodeBuiltins,
            'hono',
            'hono/*',
            '@hono/*',
            'kysely',
            '@temporalio/*',
            '**/adapters/**',
            '**/application/**',
            '**/http/**',
            '**/db/**',
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'The domain receives time as an argument.' },
        { selector: "MemberExpression[object.name='Date'][property.name='now']", message: 'The domain receives time as an argument.' },
        {
          selector: "MemberExpression[object.name='Math'][property.name='random']",
          message: 'The domain receives ids and randomness as arguments.',
        },
      ],
    },
  },
  {
    // The application layer answers in tagged values (only src/http knows HTTP) and reaches
    // the world through its ports (src/ports); the adapters are chosen in the composition.
    files: ['src/application/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['hono', 'hono/*', '@hono/*', '**/http/**', '**/adapters/**'] }] },
  },
  {
    // Workflow code is replayed: it may import the pure domain and activity types, nothing with IO.
    files: ['workflows/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...nodeBuiltins,
            '**/adapters/**',
            '**/application/**',
            '**/db/**',
            '**/http/**',
            '@temporalio/activity',
            '@temporalio/client',
            '@temporalio/worker',
          ],
        },
      ],
    },
  },
  {
    // Activities are built by factories over ports; only the worker entry point constructs adapters.
    files: ['workflows/activities/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/adapters/**', '**/http/**'] }] },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
