// The code-server process itself: its environment, its port, its process group (killed whole,
// also when this process dies first), and `--install-extension`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { provision, type ProvisionedPaths } from './provision';

const verbose = process.env.PA_HARNESS_VERBOSE === '1';
const liveGroups = new Set<number>();
let exitHooksInstalled = false;

/**
 * Installs a .vsix the way a user does (`code-server --install-extension`) into `extensionsDir`;
 * rejects with code-server's output when it fails.
 */
export async function installExtension(vsix: string, extensionsDir: string, paths?: ProvisionedPaths): Promise<string> {
  const { node, codeServer } = paths ?? (await provision());
  const root = await mkdtemp(join(tmpdir(), 'pa-install-'));
  const env = {
    ...cleanEnv(),
    XDG_CONFIG_HOME: join(root, 'config'),
    XDG_DATA_HOME: join(root, 'data'),
    XDG_CACHE_HOME: join(root, 'cache'),
  };
  const args = [
    codeServer,
    '--config',
    '/dev/null',
    '--user-data-dir',
    join(root, 'user-data'),
    '--extensions-dir',
    extensionsDir,
    '--install-extension',
    vsix,
  ];
  try {
    return await new Promise<string>((resolve, reject) => {
      const child = spawn(node, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
      child.once('error', reject);
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        if (code === 0 && /successfully installed/.test(output)) {
          resolve(output);
        } else {
          reject(new Error(`code-server --install-extension ${vsix} ended with ${signal ?? code}:\n${output}`));
        }
      });
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** The caller's environment without what would tie code-server to an enclosing VS Code. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('VSCODE_') && key !== 'ELECTRON_RUN_AS_NODE' && key !== 'NODE_OPTIONS') {
      env[key] = value;
    }
  }
  return env;
}

export function readPort(server: ChildProcess, output: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('code-server did not report its port within 60 s')), 60_000);
    const onLine = (line: string): void => {
      output.push(line);
      if (output.length > 400) {
        output.shift();
      }
      if (verbose) {
        console.error(`[code-server] ${line}`);
      }
      const match = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    for (const stream of [server.stdout, server.stderr]) {
      if (stream) {
        createInterface({ input: stream }).on('line', onLine);
      }
    }
    server.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    server.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`code-server exited early (${signal ?? code})`));
    });
    if (server.pid !== undefined) {
      trackGroup(server.pid);
    }
  });
}

/** SIGTERM to the whole group (code-server and its extension host), SIGKILL after 5 s. */
export async function killGroup(server: ChildProcess): Promise<void> {
  const pid = server.pid;
  if (pid === undefined) {
    return;
  }
  const gone = new Promise<void>((resolve) => {
    if (server.exitCode !== null || server.signalCode !== null) {
      resolve();
    } else {
      server.once('exit', () => resolve());
    }
  });
  signalGroup(pid, 'SIGTERM');
  await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  // The leader may be gone while children of the group linger: make sure.
  signalGroup(pid, 'SIGKILL');
  liveGroups.delete(pid);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** If this process dies before close(), its code-server groups must not outlive it. */
function trackGroup(pid: number): void {
  if (!exitHooksInstalled) {
    exitHooksInstalled = true;
    process.on('exit', () => liveGroups.forEach((p) => signalGroup(p, 'SIGKILL')));
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        liveGroups.forEach((p) => signalGroup(p, 'SIGKILL'));
        process.exit(signal === 'SIGINT' ? 130 : 143);
      });
    }
  }
  liveGroups.add(pid);
}
