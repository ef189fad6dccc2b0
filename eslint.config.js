// ESLint: typescript-eslint's type-checked recommended rules, plus the dependency rule of the
// layout (docs/architecture.md): edges (http/, realtime/) → domains → store/, never back.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const DOMAINS = ['agents', 'components', 'boards', 'objects', 'frames', 'webhooks', 'quotas', 'rateLimits', 'users', 'organizations', 'objectTypes', 'events', 'exports'];

/** A domain or the store may not reach up into the edges (or, for the store, into any domain). */
const forbidden = (folders, message) => ({
  'no-restricted-imports': [
    'error',
    {
      paths: [{ name: 'express', message: 'Express belongs to src/http/.' }],
      patterns: folders.map((folder) => ({ group: [`**/${folder}/*`, `../${folder}/*`], message })),
    },
  ],
});

export default tseslint.config(
  { ignores: ['dist/', 'generated/', 'node_modules/', 'data/', 'prisma/', 'scripts/', '*.config.*', 'eslint.config.js', 'client/build.mjs', 'client/build.d.mts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Ports are async; their SQLite adapters (a synchronous driver) and Hocuspocus hooks that
      // have nothing to await implement them without `await`, by design.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read JSON answers as they come (ApiResponse<any>): the `any` rules would only ask
    // for casts that prove nothing. Every other rule applies.
    files: ['test/**/*.ts', 'src/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: DOMAINS.map((domain) => `src/${domain}/**/*.ts`),
    rules: forbidden(['http', 'realtime'], 'A domain does not depend on the edges (src/http, src/realtime): define a port in the domain.'),
  },
  {
    // The browser client shares the server's zone and manifest rules (pure functions), the
    // realtime protocol (src/realtime/protocol: the socket messages and close codes, types and
    // constants only) and the ink outline of exports (src/exports/renderer/inkPath), and
    // nothing else of it.
    files: ['client/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+src/(?!frames/(writeRules|zonePermissions|frame)\\.js$|components/manifestRules\\.js$|realtime/protocol/[A-Za-z]+\\.js$|exports/renderer/inkPath\\.js$)',
              message:
                'The client imports from src/ only the zone rules (src/frames/writeRules, zonePermissions, frame types), the manifest rules (src/components/manifestRules), the realtime protocol (src/realtime/protocol/*) and the ink outline (src/exports/renderer/inkPath).',
            },
          ],
        },
      ],
    },
  },
  {
    // The browser client bundles the realtime protocol: it imports nothing outside its folder (no Node, no Hocuspocus, no domain).
    files: ['src/realtime/protocol/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(?!\\./)', message: 'src/realtime/protocol is types and constants the client bundles: it imports only its own files.' }] }],
    },
  },
  {
    // The client bundles the ink outline too: it imports perfect-freehand and nothing else.
    files: ['src/exports/renderer/inkPath.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(?!perfect-freehand$)', message: 'src/exports/renderer/inkPath.ts is bundled by the client: it imports only perfect-freehand.' }] }],
    },
  },
  {
    files: ['src/store/**/*.ts', 'src/util/**/*.ts'],
    rules: forbidden(['http', 'realtime', ...DOMAINS], 'The store and utilities do not depend on domains or edges.'),
  },
  {
    // Sizes of the house style: a file reads in one sitting, a function in one screen (blank
    // lines and comments not counted; an IIFE counts as a function). A function past 60 lines
    // is split into named steps; an exception below names its reason. test/ and bench/ are
    // outside these limits.
    files: ['src/**/*.ts', 'client/src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  {
    // Unit tests are exempt from the function limit: a `describe` callback is a list of cases,
    // each read on its own, not one function to follow.
    files: ['src/**/*.test.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
);
