// Runs scripts/provision-vscode.sh (about a second when its cache is warm) and returns the paths
// it prints. PA_PROVISION_JSON, set by scripts/test.mjs, skips the second run.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './paths';

export interface ProvisionedPaths {
  /** The versioned cache folder. */
  cacheDir: string;
  /** Node 24, used only to run code-server. */
  node: string;
  /** code-server's out/node/entry.js. */
  codeServer: string;
  /** The browser Playwright drives. */
  chromium: string;
}

let cached: Promise<ProvisionedPaths> | undefined;

export function provision(): Promise<ProvisionedPaths> {
  const fromEnv = process.env.PA_PROVISION_JSON;
  if (fromEnv) {
    return Promise.resolve(parse(fromEnv));
  }
  cached ??= runScript();
  return cached;
}

function runScript(): Promise<ProvisionedPaths> {
  const script = join(repoRoot, 'scripts', 'provision-vscode.sh');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script, '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`provision-vscode.sh exited with ${code}`));
        return;
      }
      try {
        resolve(parse(stdout));
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  });
}

function parse(json: string): ProvisionedPaths {
  const value = JSON.parse(json.trim()) as Partial<ProvisionedPaths>;
  const { cacheDir, node, codeServer, chromium } = value;
  if (!cacheDir || !node || !codeServer || !chromium) {
    throw new Error(`provision output lacks a path: ${json}`);
  }
  return { cacheDir, node, codeServer, chromium };
}
