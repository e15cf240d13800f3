// Flat config. Besides TypeScript hygiene it enforces DESIGN.md's layer arrows.
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'fs',
  'fs/promises',
  'child_process',
  'path',
  'os',
  'net',
  'http',
  'crypto',
  'util',
  'events',
  'stream',
  'url',
];
const builtinPatterns = [...nodeBuiltins, ...nodeBuiltins.map((m) => `node:${m}`)];

function restrict(paths, patterns, message, extraGroups = []) {
  return {
    'no-restricted-imports': [
      'error',
      {
        paths: paths.map((name) => ({ name, message })),
        patterns: [...patterns.map((group) => ({ group: [group], message })), ...extraGroups],
      },
    ],
  };
}

// core/'s feature folders meet each other only through their index: from outside a folder, import
// 'core/agents', never 'core/agents/agentRuns'.
const coreFolders = [
  'agents',
  'clis',
  'landing',
  'plans',
  'reconcile',
  'review',
  'sandbox',
  'timeline',
  'usage',
  'worktrees',
];
const internalsMessage = "Import a core feature folder through its index ('core/<folder>'), not its files.";
const internals = (prefixOf) =>
  coreFolders.flatMap((folder) => {
    const prefix = prefixOf(folder);
    return prefix ? [{ group: [`${prefix}${folder}/*`], message: internalsMessage }] : [];
  });
const outsideCore = internals(() => '**/core/');
const coreLayer = (files, own) => ({
  files,
  rules: restrict(
    ['vscode', 'execa', ...builtinPatterns],
    ['**/node/*', '**/host/*', '**/ui/*', '**/ui/**'],
    'src/core is plain TypeScript: it imports only core/ and util/.',
    [...internals((folder) => (folder === own ? undefined : own ? '../' : './')), ...outsideCore],
  ),
});

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', 'src/core/plans/planSchema.generated.js'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'smart'],
      'no-restricted-syntax': [
        'error',
        {
          selector: "Property[key.name='shell'][value.value=true]",
          message: 'Never run a process through a shell: pass an argv array.',
        },
      ],
    },
  },
  {
    // Prettier wraps code at 120 but leaves comments and some expressions long; strings, template
    // literals, URLs and regular expressions may run over rather than be cut.
    files: ['src/**/*.ts'],
    rules: {
      'max-len': [
        'error',
        {
          code: 120,
          ignoreComments: false,
          ignoreStrings: true,
          ignoreTemplateLiterals: true,
          ignoreUrls: true,
          ignoreRegExpLiterals: true,
        },
      ],
    },
  },
  coreLayer(['src/core/*.ts']),
  ...coreFolders.map((folder) => coreLayer([`src/core/${folder}/**/*.ts`], folder)),
  {
    files: ['src/util/**/*.ts'],
    rules: restrict(
      ['vscode', 'execa', ...builtinPatterns],
      ['**/core/*', '**/node/*', '**/host/*', '**/ui/**'],
      'src/util imports nothing of the project and no platform modules.',
    ),
  },
  {
    files: ['src/node/**/*.ts'],
    rules: restrict(['vscode'], ['**/host/*', '**/ui/**'], 'src/node never imports vscode, host/ or ui/.', outsideCore),
  },
  {
    files: ['src/host/**/*.ts'],
    rules: restrict([], ['**/ui/**'], 'src/host never imports ui/.', outsideCore),
  },
  {
    files: ['src/*.ts', 'src/ui/**/*.ts', 'src/demoAgent/**/*.ts', 'src/supervisor/**/*.ts'],
    rules: restrict([], [], '', outsideCore),
  },
);
