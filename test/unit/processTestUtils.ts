/** Helpers for tests that run real processes. */
import * as fs from 'node:fs';
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
