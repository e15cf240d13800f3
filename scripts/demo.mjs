// `npm run demo [folder]`: builds the extension, packages and installs it into a private
// code-server, opens the folder (or a fresh sample git repository) and prints the URL and three
// steps to try. Ctrl+C stops everything it started. PORT chooses the port (default 8080).
//
// Workspace trust: the extension does not run in Restricted Mode. The sample repository is the
// demo's own, made a moment ago, so the demo's private user-data settings turn workspace trust
// off (security.workspace.trust.enabled: false). Pre-trusting just that folder is not possible
// from here: code-server keeps the trusted-folder list in the browser's storage (IndexedDB), not
// in the user-data dir. A folder the user names keeps trust on: it opens in Restricted Mode (code-server
// 4.139 shows the banner, no startup dialog) and the user decides whether to trust it.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = (file, args, opts = {}) => execFileSync(file, args, { stdio: 'inherit', cwd: root, ...opts });

console.log('[demo] building');
run(process.execPath, [join(root, 'scripts', 'build.mjs'), '--production']);

console.log('[demo] provisioning code-server (cached after the first run)');
const paths = JSON.parse(
  execFileSync('bash', [join(root, 'scripts', 'provision-vscode.sh'), '--json'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }),
);

const work = mkdtempSync(join(tmpdir(), 'parallel-agents-demo-'));
const ownFolder = process.argv[2] !== undefined;
const folder = ownFolder ? resolve(process.argv[2]) : makeSampleRepo(join(work, 'sample-project'));

const vsix = join(work, 'parallel-agents.vsix');
run(process.execPath, [
  join(root, 'node_modules', '@vscode', 'vsce', 'vsce'),
  'package',
  '--no-dependencies',
  '--no-rewrite-relative-links',
  '--allow-missing-repository',
  '-o',
  vsix,
]);

const userData = join(work, 'user-data');
const extensions = join(work, 'extensions');
mkdirSync(join(userData, 'User'), { recursive: true });
writeFileSync(
  join(userData, 'User', 'settings.json'),
  JSON.stringify(
    {
      'workbench.startupEditor': 'none',
      'telemetry.telemetryLevel': 'off',
      'update.mode': 'none',
      'chat.disableAIFeatures': true,
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
      'parallelAgents.defaultProfile': 'demo',
      // Only for the demo's own sample repository (see the top of this file).
      ...(ownFolder ? {} : { 'security.workspace.trust.enabled': false }),
    },
    null,
    2,
  ),
);
const env = { ...process.env, XDG_CONFIG_HOME: join(work, 'xdg-config'), XDG_DATA_HOME: join(work, 'xdg-data') };
const codeServer = [
  paths.codeServer,
  '--config',
  '/dev/null',
  '--user-data-dir',
  userData,
  '--extensions-dir',
  extensions,
];
run(paths.node, [...codeServer, '--install-extension', vsix], { env, stdio: ['ignore', 'ignore', 'inherit'] });

const port = process.env.PORT ?? '8080';
const server = spawn(
  paths.node,
  [
    ...codeServer,
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    folder,
  ],
  { env, detached: true, stdio: ['ignore', 'pipe', 'inherit'] },
);
server.stdout.setEncoding('utf8').on('data', (text) => {
  const m = /HTTP server listening on (http:\/\/\S+)/.exec(text);
  if (m) {
    console.log(`\n[demo] Parallel Agents is ready: ${m[1].replace(/\/$/, '')}/?folder=${encodeURIComponent(folder)}`);
    if (ownFolder) {
      console.log(
        '[demo] Your folder opens untrusted (Restricted Mode), where the extension does not run: click "Restricted Mode"',
      );
      console.log('[demo] in the status bar (or Manage on its banner) and choose Trust, if you trust this folder.');
    }
    for (const line of tryThis()) {
      console.log(`[demo] ${line}`);
    }
    console.log('[demo] Ctrl+C stops everything.');
  }
});

/**
 * The three steps of the README's first screen, with the titles package.nls.json gives the commands.
 * The demo agent's task edits the sample repository; in a folder of the user's it writes a new file.
 */
function tryThis() {
  const nls = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8'));
  const command = (id) => `"${nls[`command.${id}.title`]}"`;
  const category = nls['command.category'];
  const [task, file] = ownFolder
    ? ['create AGENT_DEMO.md: # Written by the demo agent', 'AGENT_DEMO.md']
    : ['replace src/math.js: a + b => b + a', 'math.js'];
  return [
    'Try this (the demo agent needs no API key):',
    `  1. F1 → "${category}: ${nls['command.dispatch.title']}" → task:  ${task}`,
    '     → agent: demo → Enter (isolation: a new worktree and branch) → Enter (title).',
    `  2. Click the ${category} icon in the activity bar: the ${nls['views.agents.name']} view lists the agent.`,
    `     Expand it, click ${file}: the diff editor shows the change against the commit it started from.`,
    `  3. On the agent's row (right-click, or its inline buttons): ${command('merge')} lands its branch on yours;`,
    `     ${command('discard')} removes its worktree (saved first; ${command('restore')} brings it back).`,
  ];
}

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  try {
    process.kill(-server.pid, 'SIGTERM');
  } catch {
    // already gone
  }
  if (!process.argv[2]) {
    console.log(`[demo] the sample repository stays at ${folder}`);
  }
  rmSync(userData, { recursive: true, force: true });
  process.exit(0);
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
server.on('exit', (code) => {
  console.log(`[demo] code-server exited (${code})`);
  stop();
});

function makeSampleRepo(dir) {
  const files = {
    'README.md': '# Sample project\n\nA small repository to try Parallel Agents on.\n',
    'src/math.js': 'exports.add = (a, b) => a + b;\nexports.sub = (a, b) => a - b;\n',
    'src/greet.js': 'exports.greet = (name) => `Hello, ${name}!`;\n',
    'package.json': '{\n  "name": "sample-project",\n  "version": "1.0.0"\n}\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  const git = (...args) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  if (!existsSync(join(dir, '.git'))) throw new Error('git init failed');
  git('-c', 'user.name=Parallel Agents Demo', '-c', 'user.email=demo@parallel-agents.invalid', 'add', '.');
  git(
    '-c',
    'user.name=Parallel Agents Demo',
    '-c',
    'user.email=demo@parallel-agents.invalid',
    'commit',
    '-q',
    '-m',
    'Sample project',
  );
  console.log(`[demo] created a sample repository at ${dir}`);
  return dir;
}
