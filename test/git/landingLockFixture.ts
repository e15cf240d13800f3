// A holder of a repository's landing lock in a separate Node process (test/git/landingLockHolder.ts,
// bundled to out/), and a landing with real git and a real demo agent in this process.
import * as assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentLanding } from '../../src/core/landing/agentLanding';
import type { LandingWait, RepositoryLocks } from '../../src/core/ports';
import { LandingLocks } from '../../src/node/registry/landingLocks';
import type { LockTimings } from '../../src/node/registry/lockFile';
import { waitFor } from '../harness/waitFor';
import { ManagerFixture } from './managerFixture';

const holderScript = path.resolve(__dirname, 'landingLockHolder.js');

export interface HolderEvent {
  readonly event: string;
  readonly [key: string]: unknown;
}

export class Holder {
  readonly child: ChildProcessWithoutNullStreams;
  readonly events: HolderEvent[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(config: object) {
    this.child = spawn(process.execPath, [holderScript, JSON.stringify(config)], { stdio: 'pipe' });
    readline.createInterface({ input: this.child.stdout }).on('line', (line) => this.events.push(JSON.parse(line)));
    this.child.stderr.on('data', (d: Buffer) => process.stderr.write(`[holder] ${d.toString()}`));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  get pid(): number {
    return this.child.pid!;
  }

  event(name: string, timeoutMs = 20_000): Promise<HolderEvent> {
    return waitFor(
      `the holder's "${name}"`,
      () => {
        const failed = this.events.find((e) => e.event === 'error');
        assert.equal(failed, undefined, `the holder failed: ${JSON.stringify(failed)}`);
        return this.events.find((e) => e.event === name);
      },
      { timeoutMs, everyMs: 10 },
    );
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
    }
  }
}

/** A real manager and demo agents on a temporary repository, landing under a LandingLocks. */
export class LockFixture {
  readonly fx = new ManagerFixture();
  readonly manager: AgentManager = this.fx.manager();
  readonly warnings: string[] = [];
  readonly waits: LandingWait[] = [];
  readonly holders: Holder[] = [];

  locks(timings: Partial<LockTimings>, onWait?: (wait: LandingWait) => void): LandingLocks {
    return new LandingLocks({
      logger: { info() {}, warn: (m) => this.warnings.push(m), error() {} },
      timings,
      onWait: (wait) => {
        this.waits.push(wait);
        onWait?.(wait);
      },
    });
  }

  landing(locks: RepositoryLocks): AgentLanding {
    return new AgentLanding(this.manager, this.fx.git, { info() {}, warn() {}, error() {} }, locks);
  }

  /** A finished demo agent that created `file`, its work committed to its branch. */
  async committedAgent(file: string, text: string): Promise<AgentRecord> {
    const record = await this.manager.dispatch({
      prompt: `create ${file}: ${text}`,
      profile: 'demo',
      folder: this.fx.repo,
      title: `Add ${file}`,
    });
    const done = await this.fx.finished(this.manager, record.id);
    assert.equal(done.status, 'succeeded');
    await new AgentLanding(this.manager, this.fx.git, { info() {}, warn() {}, error() {} }).commit(done.id, file);
    return this.manager.get(done.id);
  }

  holder(config: object): Holder {
    const holder = new Holder({ repo: this.fx.repo, ...config });
    this.holders.push(holder);
    return holder;
  }

  async dispose(): Promise<void> {
    for (const h of this.holders) {
      h.kill();
      await h.exited;
    }
    await this.fx.dispose();
  }
}

/** Whether a promise has settled, without waiting for it. */
export function tracked<T>(p: Promise<T>): { readonly promise: Promise<T>; settled(): boolean } {
  let done = false;
  const promise = p.finally(() => (done = true));
  promise.catch(() => undefined);
  return { promise, settled: () => done };
}
