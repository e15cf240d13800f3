// A real Reconciler on a ManagerFixture's temporary repository (real git, real AgentManager), with
// helpers that make orphans by hand the way the extension names them and read back exact bytes.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentLanding } from '../../src/core/landing/agentLanding';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager, DispatchOptions } from '../../src/core/agents/agentManager';
import { Reconciler } from '../../src/core/reconcile/reconciler';
import { NodeFileSystem } from '../../src/node/fileSystem';
import { LiveProcesses } from '../../src/node/liveProcesses';
import { recordsOnDisk } from '../../src/node/registry/recordsOnDisk';
import { git, ManagerFixture } from './managerFixture';

const quiet = { info() {}, warn() {}, error() {} };

/** Every byte a worktree orphan holds that is not committed, and one committed file. */
export interface OrphanWork {
  readonly committed: string;
  readonly untracked: string;
  readonly binary: string;
}

export class ReconcileFixture {
  readonly fx = new ManagerFixture();
  /** What the AgentManager logged, as `warn …` lines (info is left out). */
  readonly managerLogged: string[] = [];
  readonly manager: AgentManager = this.fx.manager({
    logger: {
      info() {},
      warn: (m: string) => this.managerLogged.push(`warn ${m}`),
      error: (m: string) => this.managerLogged.push(`error ${m}`),
    },
  });
  readonly landing = new AgentLanding(this.manager, this.fx.git, quiet);
  readonly repo = this.fx.repo;
  /** What the Reconciler logged, as `info …` / `warn …` lines. */
  readonly logged: string[] = [];
  readonly root = `${this.fx.repo}.worktrees`;
  inUse: { paths: string[]; branches: string[] } = { paths: [], branches: [] };
  /** The workspace's repositories; an Error makes listing them fail. */
  repositories: string[] | Error = [this.fx.repo];
  private n = 0;
  readonly reconciler = new Reconciler({
    manager: this.manager,
    landing: this.landing,
    git: this.fx.git,
    fs: new NodeFileSystem(),
    clock: { now: () => Date.now() },
    logger: {
      info: (m: string) => this.logged.push(`info ${m}`),
      warn: (m: string) => this.logged.push(`warn ${m}`),
      error: (m: string) => this.logged.push(`error ${m}`),
    },
    settings: () => ({ branchPrefix: 'agents', logDir: path.join(this.fx.tmp, 'logs') }),
    profile: () => ({ name: 'demo', mode: 'headless' }),
    repositories: async () => {
      if (this.repositories instanceof Error) {
        throw this.repositories;
      }
      return this.repositories;
    },
    inUse: () => this.inUse,
    newId: () => `r${this.n++}`,
    registryRecords: (repoRoot) => recordsOnDisk(repoRoot, 'agents'),
    liveRuns: new LiveProcesses({ statusDirs: () => [path.join(this.fx.tmp, 'agents')] }),
  });

  /** A demo agent that made <title>.txt (left uncommitted), once its run has ended; `more` adds to its dispatch. */
  async dispatched(title: string, more: Partial<DispatchOptions> = {}): Promise<AgentRecord> {
    const record = await this.manager.dispatch({
      prompt: `create ${title}.txt: work of ${title}`,
      profile: 'demo',
      folder: this.repo,
      title,
      ...more,
    });
    return this.fx.finished(this.manager, record.id);
  }

  /**
   * A worktree and branch made by hand in the worktree root, the way the extension names them:
   * one commit, then a modified, a deleted, an untracked text and an untracked binary file, all
   * with contents of its own.
   */
  worktreeOrphan(slug: string, dir = path.join(this.root, slug), branch = `agents/${slug}`): string {
    git(this.repo, 'worktree', 'add', '-q', '-b', branch, dir);
    fs.writeFileSync(path.join(dir, `done-${slug}.txt`), `committed by ${slug}\n`);
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', `work of ${slug}`);
    fs.writeFileSync(path.join(dir, 'app.js'), `console.log(${JSON.stringify(slug)});\n`);
    fs.rmSync(path.join(dir, 'README.md'));
    fs.writeFileSync(path.join(dir, `notes-${slug}.md`), `untracked notes of ${slug}, no newline`);
    fs.writeFileSync(path.join(dir, `blob-${slug}.bin`), binaryOf(slug));
    return dir;
  }

  /** A branch with two commits of its own that no worktree has checked out. */
  branchOrphan(slug: string, branch = `agents/${slug}`): string {
    const scratch = path.join(this.fx.tmp, `scratch-${slug}`);
    git(this.repo, 'worktree', 'add', '-q', '-b', branch, scratch);
    fs.writeFileSync(path.join(scratch, `first-${slug}.txt`), `first of ${slug}\n`);
    git(scratch, 'add', '.');
    git(scratch, 'commit', '-q', '-m', `first of ${slug}`);
    fs.writeFileSync(path.join(scratch, `second-${slug}.bin`), binaryOf(slug));
    fs.writeFileSync(path.join(scratch, 'app.js'), `// ${slug}\n`);
    git(scratch, 'add', '.');
    git(scratch, 'commit', '-q', '-m', `second of ${slug}`);
    git(this.repo, 'worktree', 'remove', scratch);
    return this.tip(branch)!;
  }

  /** The branch's tip, or undefined when it does not exist. */
  tip(branch: string): string | undefined {
    return this.ref(`refs/heads/${branch}`);
  }

  ref(name: string): string | undefined {
    return git(this.repo, 'for-each-ref', '--format=%(objectname)', name) || undefined;
  }

  /** Every local branch and saved-work ref with its sha. */
  refs(): Record<string, string> {
    return Object.fromEntries(
      git(this.repo, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/', 'refs/parallel-agents/')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.split(' ')),
    );
  }

  /** The exact bytes of a blob in a commit's tree. */
  blob(rev: string, file: string): Buffer {
    return execFileSync('git', ['cat-file', 'blob', `${rev}:${file}`], { cwd: this.repo });
  }

  /** The files of a commit's tree. */
  treeFiles(rev: string): string[] {
    return git(this.repo, 'ls-tree', '-r', '--name-only', rev).split('\n').sort();
  }

  /** The registered worktrees as `path branch`, in git's order. */
  registrations(): string[] {
    return git(this.repo, 'worktree', 'list', '--porcelain')
      .split('\n\n')
      .map((entry) => {
        const lines = entry.split('\n');
        const at = lines.find((l) => l.startsWith('worktree '))!.slice('worktree '.length);
        const branch = lines.find((l) => l.startsWith('branch '))?.slice('branch '.length) ?? '(detached)';
        const stale = lines.some((l) => l.startsWith('prunable')) ? ' prunable' : '';
        return `${at} ${branch}${stale}`;
      });
  }

  async dispose(): Promise<void> {
    this.reconciler.dispose();
    await this.fx.dispose();
  }
}

/** For each test of the calling describe(): a fresh ReconcileFixture handed to `use`, disposed of after it. */
export function eachReconcile(use: (fixture: ReconcileFixture) => void): void {
  let fixture: ReconcileFixture | undefined;
  beforeEach(() => {
    fixture = new ReconcileFixture();
    use(fixture);
  });
  afterEach(async () => {
    await fixture?.dispose();
  });
}

/** All 256 byte values, in an order of the slug's own. */
export function binaryOf(slug: string): Buffer {
  const shift = [...slug].reduce((a, c) => a + c.charCodeAt(0), 0);
  return Buffer.from(Array.from({ length: 256 }, (_, i) => (i + shift) % 256));
}

/** Every file under dir (but .git) with its bytes as base64, so two snapshots compare byte for byte. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.name === '.git') {
        continue;
      }
      if (entry.isDirectory()) {
        walk(child);
      } else {
        out[child] = fs.readFileSync(path.join(dir, child)).toString('base64');
      }
    }
  };
  walk('');
  return out;
}

export { git };
