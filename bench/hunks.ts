// Accept one hunk into the workspace: acceptSelectedLines, the function Accept Selected Lines into
// Workspace calls, on a 2,000-line file of a real repository and linked worktree (git show of the
// base, reading both files, the line diffs, writing the workspace file).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentRecord } from '../src/core/agent';
import { acceptSelectedLines, applyToTarget, diffLines, selectChanges, splitLines } from '../src/core/review';
import { NodeFileBytes } from '../src/node/fileBytes';
import { NodeGit } from '../src/node/git/createGit';
import { now, percentile } from './stats';

export interface HunkBench {
  readonly lines: number;
  readonly runs: number;
  /** The workspace file as at the base: the common case. */
  readonly p50Ms: number;
  readonly maxMs: number;
  /** The workspace file edited by the user in 20 other places: its lines are mapped by a second diff. */
  readonly movedOnP50Ms: number;
  /** The line work alone, in memory (split, diffs, selection, apply, join): no git, no files. */
  readonly inMemoryP50Ms: number;
  readonly targetMs: number;
}

const targetMs = 200;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'b',
      GIT_AUTHOR_EMAIL: 'b@b',
      GIT_COMMITTER_NAME: 'b',
      GIT_COMMITTER_EMAIL: 'b@b',
    },
  }).trim();
}

export async function measureHunks(runs = 30): Promise<HunkBench> {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-bench-hunks-')));
  try {
    const repo = path.join(tmp, 'repo');
    const wt = path.join(tmp, 'wt');
    const lines = 2000;
    const baseText = Array.from({ length: lines }, (_, i) => `\tline ${i} — ñ ${'x'.repeat(i % 60)}\r\n`);
    fs.mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(repo, 'big.txt'), baseText.join(''));
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'base');
    const baseSha = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'worktree', 'add', '-q', '-b', 'agents/bench', wt, baseSha);
    // The agent changed 40 places; the hunk accepted is the one in the middle (3 new lines after line 1000).
    const agent = baseText.flatMap((l, i) =>
      i % 50 === 0 ? [l, `agent ${i} a\r\n`, `agent ${i} b\r\n`, `agent ${i} c\r\n`] : [l],
    );
    fs.writeFileSync(path.join(wt, 'big.txt'), agent.join(''));
    const record = {
      id: 'bench',
      title: 'bench',
      repoRoot: repo,
      cwd: wt,
      worktreePath: wt,
      baseSha,
      changedFiles: [{ path: 'big.txt', kind: 'modified', binary: false }],
    } as unknown as AgentRecord;
    const deps = { git: new NodeGit(), files: new NodeFileBytes() };
    const middle = agent.indexOf('agent 1000 b\r\n');
    const time = async (workspace: string) => {
      const samples: number[] = [];
      for (let i = 0; i < runs; i++) {
        fs.writeFileSync(path.join(repo, 'big.txt'), workspace);
        const started = now();
        await acceptSelectedLines(deps, record, record.changedFiles[0], [{ start: middle, end: middle, whole: true }]);
        samples.push(now() - started);
        if (!fs.readFileSync(path.join(repo, 'big.txt'), 'utf8').includes('agent 1000 c\r\n')) {
          throw new Error('the hunk was not accepted');
        }
      }
      return samples;
    };
    const plain = await time(baseText.join(''));
    const movedOnText = baseText.map((l, i) => (i % 100 === 7 ? `user ${l}` : l)).join('');
    const movedOn = await time(movedOnText);
    const inMemory: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = now();
      const [b, a, t] = [splitLines(baseText.join('')), splitLines(agent.join('')), splitLines(movedOnText)];
      const picked = selectChanges(diffLines(b, a), [{ start: middle, end: middle, whole: true }], b, a);
      applyToTarget(picked, b, a, t, 'big.txt').join('');
      inMemory.push(now() - started);
    }
    return {
      lines,
      runs,
      p50Ms: percentile(plain, 50),
      maxMs: Math.max(...plain),
      movedOnP50Ms: percentile(movedOn, 50),
      inMemoryP50Ms: percentile(inMemory, 50),
      targetMs,
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
