import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import importX from 'eslint-plugin-import-x';
import { readdirSync } from 'node:fs';

// Each feature folder may import lib, components and itself, never another feature (docs/ARCHITECTURE.md).
const FEATURES = readdirSync(new URL('./src/features', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

export default tseslint.config(
  { ignores: ['dist', 'dev-dist', 'data', 'node_modules', 'coverage', 'server/migrations'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ['eslint.config.js', 'bin/*.mjs'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
      globals: { ...globals.node },
    },
    rules: {
      eqeqeq: ['error', 'always'],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Fastify plugins and hooks are async by contract even when they await nothing.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}', 'tests/unit/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // Shared code below src/features never reaches up into a feature.
      'no-restricted-imports': 'off',
    },
  },
  {
    // The client's layers: app → features → components → lib; a feature never imports another; no cycles.
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.json'] } },
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/extensions': ['.ts', '.tsx', '.js'],
    },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            ...FEATURES.map((name) => ({
              target: `./src/features/${name}`,
              from: './src/features',
              except: [`./${name}`],
              message: 'A feature never imports another feature: move what they share to src/lib or src/components.',
            })),
            {
              target: ['./src/lib', './src/components'],
              from: ['./src/features', './src/app'],
              message: 'Shared code (src/lib, src/components) never imports a feature or the app.',
            },
            { target: './src/lib', from: './src/components', message: 'src/lib sits below src/components.' },
          ],
        },
      ],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // The server's layers (docs/ARCHITECTURE.md): nothing below the routes imports them; repositories import no
    // service, task, importer or plugin; services import no plugin; domain/ imports nothing.
    files: ['server/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver': { node: { extensions: ['.ts', '.js', '.json'] } },
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/extensions': ['.ts', '.js'],
    },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: [
                'cli',
                'db',
                'domain',
                'importers',
                'lib',
                'plugins',
                'policies',
                'presenters',
                'repositories',
                'scan-reports',
                'schemas',
                'services',
                'tasks',
              ].map((dir) => `./server/src/${dir}`),
              from: './server/src/routes',
              message: 'Only the routes and app.ts import routes: move shared code down (domain/, services/).',
            },
            {
              target: './server/src/domain',
              from: './server/src',
              except: ['./domain'],
              message: 'domain/ is the bottom layer: it imports nothing of the server.',
            },
            {
              target: './server/src/repositories',
              from: ['services', 'tasks', 'importers', 'plugins'].map((dir) => `./server/src/${dir}`),
              message:
                'Repositories sit below services, tasks, importers and plugins: move what they share to domain/.',
            },
            {
              target: './server/src/schemas',
              from: ['services', 'tasks', 'importers', 'plugins'].map((dir) => `./server/src/${dir}`),
              message: 'Request schemas describe and check input: no service, task, importer or plugin.',
            },
            {
              target: './server/src/services',
              from: './server/src/plugins',
              message: 'Services never import a Fastify plugin: plugins wrap services, not the other way round.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests read JSON answers whose shape is exactly what they assert.
    files: ['tests/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    files: ['sw/**/*.ts'],
    languageOptions: { globals: { ...globals.serviceworker } },
  },
  {
    // contract/ is what server, client and service worker share: it imports nothing, not even a package.
    files: ['contract/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['*'], message: 'contract/ imports nothing.' }] }],
    },
  },
);
