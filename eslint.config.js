// Lint: typescript-eslint's type-aware rules, plus the house boundaries as import rules.
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'path', 'crypto', 'os', 'child_process'];

// A Kysely call or a sql template naming the events table: only the event store adapter may.
const readsEventsTable = [
  {
    selector: "CallExpression[callee.property.name=/^(selectFrom|insertInto|updateTable|deleteFrom)$/] > Literal[value='events']",
    message: 'Read events through the EventStore port.',
  },
  {
    selector: "TaggedTemplateExpression[tag.name='sql'] TemplateElement[value.raw=/\\b(from|join)\\s+events\\b/i]",
    message: 'Read events through the EventStore port.',
  },
];

// HTTP maps requests onto the application layer: it never reaches adapters or the database itself.
const httpForbidden = ['**/adapters/**', '**/db/**', 'kysely'];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'clients/python/.venv-ci/',
      'data/',
      'migrations/',
      'sdk/dist/',
      // Written by openapi-typescript from the document (npm run sdk:generate): its idioms are the generator's.
      'sdk/src/generated/',
      'eslint.config.js',
      'bin/',
      'scripts/*.mjs',
      'src/main.deno.ts',
    ],
  },
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
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [...nodeBuiltins, '**/src/adapters/**', '**/src/application/**', '**/src/http/**', '**/src/domain/**', '**/src/db/**'],
        },
      ],
    },
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
    rules: {
      'no-restricted-imports': ['error', { patterns: ['hono', 'hono/*', '@hono/*', '**/http/**', '**/adapters/**'] }],
      // The event log is read through the EventStore port, here as in the projectors.
      'no-restricted-syntax': ['error', ...readsEventsTable],
    },
  },
  {
    // Routes parse, call the application layer and map its answer: no adapters, no Kysely queries.
    files: ['src/http/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: httpForbidden }] },
  },
  {
    // One operation per route file: a route imports shared helpers (src/http, or a routes folder's
    // `*-support.ts` and `*schemas.ts`), never another route; only a folder's index.ts lists its routes.
    files: ['src/http/routes/**/*.ts'],
    ignores: ['src/http/routes/*/index.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: httpForbidden, message: 'Routes reach adapters and the database only through the application layer.' },
            {
              regex: '^\\.{1,2}/(?:[\\w-]+/)?[\\w.-]+(?<!-support|schemas)\\.ts$',
              message: 'Routes import shared helpers (*-support.ts, *schemas.ts, src/http), never another route file or index.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    // Projectors read the event log through the EventStore port (src/ports/event-store.ts), never
    // the Postgres adapter's reader or the events table itself: one place knows how a late commit is never skipped.
    files: ['src/projections/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['**/adapters/**'] }],
      'no-restricted-syntax': ['error', ...readsEventsTable],
    },
  },
  {
    // Ports own their contracts: an adapter's types (Kysely's transaction) arrive as type parameters,
    // never imported from the database code or the adapters.
    files: ['src/ports/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/db/**', '**/adapters/**', 'kysely'] }] },
  },
  {
    // Adapters implement ports (src/ports) and may use the domain; the application layer depends on them, not the reverse.
    files: ['src/adapters/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/application/**', '**/http/**'] }] },
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
