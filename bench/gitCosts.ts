// Measurements behind the suggestions: what the GitRunner adds to one git process (chatty or silent),
// what `checkout.workers` saves on the worktree add itself, and what an add split in two costs
// (registered with --no-checkout, then checked out by one of three commands in the new worktree).
import * as path from 'node:path';
import { GitRunner } from '../src/node/git/runner';
import { type BenchRepo, git, plainWorktreeAdd, removePlainWorktree } from './repo';
import { median, round, sleep, timed } from './stats';

export interface Comparison {
  readonly what: string;
  readonly runs: number;
  readonly baselineMs: number;
  readonly candidateMs: number;
  readonly deltaMs: number;
  readonly ratio: number;
}

async function compare(
  what: string,
  runs: number,
  baseline: () => Promise<unknown>,
  candidate: () => Promise<unknown>,
  between: () => Promise<void> = async () => undefined,
): Promise<Comparison> {
  const a: number[] = [];
  const b: number[] = [];
  await baseline();
  await between();
  await candidate();
  await between();
  for (let i = 0; i < runs; i++) {
    const pair: [number[], () => Promise<unknown>][] = [
      [a, baseline],
      [b, candidate],
    ];
    for (const [into, body] of i % 2 === 0 ? pair : pair.reverse()) {
      into.push((await timed(body)).ms);
      await between();
    }
  }
  const baselineMs = median(a);
  const candidateMs = median(b);
  return {
    what,
    runs,
    baselineMs: round(baselineMs, 2),
    candidateMs: round(candidateMs, 2),
    deltaMs: round(candidateMs - baselineMs, 2),
    ratio: round(candidateMs / baselineMs, 3),
  };
}

export async function measureGitCosts(repo: BenchRepo): Promise<Comparison[]> {
  const runner = new GitRunner();
  const raw = (args: string[]) => git(repo.dir, args);
  const viaRunner = (args: string[]) => runner.text(repo.dir, args);
  const addVia = (run: (args: string[]) => Promise<string>, name: string) =>
    run(['worktree', 'add', '-b', `plain/${name}`, path.join(repo.worktreeRoot, name), repo.sha]);
  const missingBranch = async (run: (args: string[]) => Promise<string>) => {
    await run(['rev-parse', '--verify', 'refs/heads/no-such-branch']).catch(() => undefined);
  };
  const results: Comparison[] = [];
  const head = ['rev-parse', '--verify', 'HEAD^{commit}'];
  results.push(
    await compare(
      'rev-parse HEAD (prints): execFile → GitRunner',
      9,
      () => raw(head),
      () => viaRunner(head),
    ),
  );
  results.push(
    await compare(
      'rev-parse missing branch (stderr only): execFile → GitRunner',
      9,
      () => missingBranch(raw),
      () => missingBranch(viaRunner),
    ),
  );
  results.push(
    await compare(
      'worktree prune (prints nothing): execFile → GitRunner',
      9,
      () => raw(['worktree', 'prune']),
      () => viaRunner(['worktree', 'prune']),
    ),
  );

  results.push(
    await compareAdds(
      repo,
      'execFile → GitRunner',
      (name) => addVia(raw, name),
      (name) => addVia(viaRunner, name),
    ),
  );
  results.push(await compareCheckoutWorkers(repo));
  for (const [label, checkout] of splitCheckouts) {
    results.push(
      await compareAdds(
        repo,
        `one command → --no-checkout + ${label}`,
        (name) => plainWorktreeAdd(repo, name),
        (name) => splitAdd(repo, name, checkout),
      ),
    );
  }
  return results;
}

/** Ways to check out a worktree registered with --no-checkout; read-tree is the one worktreeCheckout.ts uses. */
const splitCheckouts: readonly (readonly [string, readonly string[]])[] = [
  ['read-tree -mu HEAD', ['read-tree', '-m', '-u', '--no-recurse-submodules', 'HEAD']],
  ['reset --hard', ['reset', '--hard', '-q', '--no-recurse-submodules']],
  ['checkout -f', ['checkout', '-f', '-q']],
];

async function splitAdd(repo: BenchRepo, name: string, checkout: readonly string[]): Promise<void> {
  const target = path.join(repo.worktreeRoot, name);
  await git(repo.dir, ['worktree', 'add', '--no-checkout', '-b', `plain/${name}`, target, repo.sha]);
  await git(target, checkout);
}

let serial = 0;

/** Two ways of adding a worktree of the whole repository, 3 runs each, removed in between. */
async function compareAdds(
  repo: BenchRepo,
  what: string,
  baseline: (name: string) => Promise<unknown>,
  candidate: (name: string) => Promise<unknown>,
): Promise<Comparison> {
  const names: string[] = [];
  const named = (add: (name: string) => Promise<unknown>) => async () => {
    const name = `cost-${serial++}`;
    names.push(name);
    await add(name);
  };
  const cleanup = async () => {
    for (const name of names.splice(0)) {
      await removePlainWorktree(repo, name);
    }
    await sleep(300);
  };
  return compare(`worktree add ${repo.fileCount} files: ${what}`, 3, named(baseline), named(candidate), cleanup);
}

export function compareCheckoutWorkers(repo: BenchRepo): Promise<Comparison> {
  return compareAdds(
    repo,
    'default → -c checkout.workers=2',
    (name) => plainWorktreeAdd(repo, name),
    (name) => plainWorktreeAdd(repo, name, ['-c', 'checkout.workers=2']),
  );
}
