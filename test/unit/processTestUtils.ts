/** Helpers for tests that run real processes. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentProcess } from '../../src/core/ports';

/** Resolves with all output so far once it contains `needle`; rejects if the process ends first. */
export function waitForOutput(agent: AgentProcess, needle: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const sub = agent.onDidOutput((text) => {
      seen += text;
      if (seen.includes(needle)) {
        sub.dispose();
        resolve(seen);
      }
    });
    void agent.exit.then((exit) =>
      reject(new Error(`exited before printing "${needle}": ${JSON.stringify(exit)}; output: ${seen}`)),
    );
  });
}

/** Alive and not a zombie (an init that does not reap its adopted children leaves zombies). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

export async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Pids of the supervisors (started from `script`) still waiting for a spec on stdin whose folder (cwd)
 * is `dir` or lies under it. Linux only: read from /proc.
 */
export function waitingSupervisors(script: string, dir: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
        const cwd = fs.realpathSync(`/proc/${entry}/cwd`);
        const inside = cwd === dir || cwd.startsWith(dir + path.sep);
        return argv.includes(script) && argv.includes('--spec-on-stdin') && inside;
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    })
    .map(Number);
}
