/**
 * The demo agent's probes of its sandbox: each tries one thing a sandbox should refuse and reports
 * `allowed` or `denied (<why>)`, never failing the run. They act outside the agent's folder, so they
 * run only when DEMO_AGENT_PROBES=1 is in the environment (tests set it; the demo profile never does).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';

import type { ProbeKind } from './language';

export const probesEnabled = (): boolean => process.env.DEMO_AGENT_PROBES === '1';

export async function probe(kind: ProbeKind, target: string): Promise<string> {
  try {
    switch (kind) {
      case 'write':
        fs.writeFileSync(target, 'written by the demo agent\n');
        return 'allowed';
      case 'read':
        return `allowed (${fs.readFileSync(target).length} bytes)`;
      case 'fetch':
        return await fetchThroughProxy(target);
      case 'connect':
        return await connect(target);
    }
  } catch (e) {
    const error = e as NodeJS.ErrnoException;
    return `denied (${error.code ?? error.message})`;
  }
}

/** GET `url` (http only) through HTTP_PROXY when set, as a proxied client does; otherwise directly. */
function fetchThroughProxy(url: string): Promise<string> {
  const proxy = process.env.HTTP_PROXY ?? process.env.http_proxy;
  const target = new URL(url);
  const options = proxy
    ? { host: new URL(proxy).hostname, port: new URL(proxy).port, path: url, headers: { Host: target.host } }
    : { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}` };
  return new Promise((resolve, reject) => {
    const req = http.get(options, (res) => {
      res.resume();
      const code = res.statusCode ?? 0;
      resolve(code >= 200 && code < 300 ? `allowed (HTTP ${code})` : `denied (HTTP ${code})`);
    });
    req.setTimeout(5000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

function connect(hostPort: string): Promise<string> {
  const at = hostPort.lastIndexOf(':');
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(hostPort.slice(at + 1)), hostPort.slice(0, at), () => {
      socket.destroy();
      resolve('allowed');
    });
    socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
    socket.on('error', reject);
  });
}

/** Commits everything in the folder (git from PATH, argv only); throws git's message when it fails. */
export function commitAll(root: string, message: string): string {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  git('add', '-A');
  git('commit', '-q', '-m', message);
  return git('rev-parse', '--short', 'HEAD');
}
