// `npm run demo [folder]`: builds the extension, packages and installs it into a private
// code-server, opens the folder (or a fresh sample git repository) and prints the URL.
// Ctrl+C stops everything it started. PORT chooses the port (default 8080).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync, existsSync, rmSync } from 'node:fs';
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
const folder = process.argv[2] ? resolve(process.argv[2]) : makeSampleRepo(join(work, 'sample-project'));

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
      'parallelAgents.defaultProfile': 'demo',
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
    console.log(
      '[demo] Open it, click the Parallel Agents icon in the activity bar, then "Dispatch Agent" (demo profile: no API key).',
    );
    console.log('[demo] Try the task:  replace src/math.js: a + b => b + a');
    console.log('[demo] Ctrl+C stops everything.');
  }
});

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
