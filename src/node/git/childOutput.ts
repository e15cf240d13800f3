/**
 * What starting a git process shares, on the host's thread (directSpawn.ts) or in the spawn worker
 * (spawnWorker.ts): collecting its output under a cap, lowering its priority, feeding its input.
 * Node built-ins only: the worker's bundle takes nothing else.
 */
import type { ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';

/** A child's stdout and stderr, collected until the two together pass `cap`; then the child is killed. */
export class CappedOutput {
  readonly stdout: Buffer[] = [];
  readonly stderr: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly child: Pick<ChildProcess, 'kill'>,
    private readonly cap: number,
  ) {}

  /** A 'data' listener that keeps chunks in `into` while under the cap. */
  collect(into: Buffer[]): (chunk: Buffer) => void {
    return (chunk) => {
      this.size += chunk.length;
      if (this.size > this.cap) {
        this.child.kill();
        return;
      }
      into.push(chunk);
    };
  }

  /** It wrote more than the cap (and was killed). */
  get overCap(): boolean {
    return this.size > this.cap;
  }

  get stderrText(): string {
    return Buffer.concat(this.stderr).toString('utf8');
  }
}

/** Writes `input` to the child's stdin and closes it. */
export function feedInput(child: Pick<ChildProcess, 'stdin'>, input: string | undefined): void {
  if (input !== undefined && child.stdin) {
    // A git that exits before reading everything closes the pipe: its exit code tells why.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  }
}

/** Gives a child process the lowest priority (nice 19); a process already gone or a refusal is ignored. */
export function lowerPriority(pid: number | undefined): void {
  if (pid !== undefined) {
    try {
      setPriority(pid, 19);
    } catch {
      // Not allowed here, or already ended: it runs at normal priority.
    }
  }
}
