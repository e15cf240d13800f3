// Where a dispatch's time goes: the same real AgentManager with every port (and the git object's
// runner) wrapped in a stopwatch. Sequential dispatches only, so the steps add up to the total.
import type { AgentManagerDeps } from '../src/core/agents/agentManager';
import type { NodeGit } from '../src/node/git/createGit';
import { createBenchManager, delegateGit, type ManagerGit } from './manager';
import type { BenchRepo } from './repo';
import { median, now, round, sleep } from './stats';

export interface Breakdown {
  readonly runs: number;
  readonly medianTotalMs: number;
  /** Median ms of each step over the runs, in the order dispatch runs them. */
  readonly steps: { step: string; medianMs: number }[];
  /** The change-set refresh dispatch starts after launching (not part of the total). */
  readonly medianRefreshMs: number;
}

class Stopwatch {
  private current = new Map<string, number>();
  readonly runs: Map<string, number>[] = [];
  readonly refreshes: number[] = [];

  async time<T>(label: string, body: () => Promise<T>): Promise<T> {
    const started = now();
    try {
      return await body();
    } finally {
      this.add(label, now() - started);
    }
  }

  add(label: string, ms: number): void {
    this.current.set(label, (this.current.get(label) ?? 0) + ms);
  }

  finishRun(): void {
    this.runs.push(this.current);
    this.current = new Map();
  }
}

/** Names a git command the way the breakdown shows it. */
function gitLabel(args: readonly string[]): string {
  if (args[0] === 'worktree') {
    return `git worktree ${args[1]}${args.includes('--no-checkout') ? ' --no-checkout' : ''}`;
  }
  if (args[0] === 'rev-parse') {
    return args.includes('--show-toplevel')
      ? 'git rev-parse (locate)'
      : args.some((a) => a.startsWith('refs/heads/'))
        ? 'git rev-parse (branch tip)'
        : 'git rev-parse';
  }
  if (args.includes('hook')) {
    return 'git hook run post-checkout';
  }
  return `git ${args[0]}`;
}

/** Times each git process the git object runs while `inside()` holds (during addWorktree). */
function wrapRunner(git: NodeGit, watch: Stopwatch, inside: () => boolean): void {
  // Every process goes through the runner's exec (text and run call it): wrapping it on the
  // instance is acceptable for a measurement, not for the product.
  const runner = git.runner;
  const exec = runner.exec.bind(runner);
  runner.exec = (cwd, args, options) => {
    const call = () => exec(cwd, args, options);
    return inside() ? watch.time(`  ${gitLabel(args)}`, call) : call();
  };
}

/** Runs while the checkout's git process does: part of that process's time, not added to the rest. */
const prepareLabel = '  prepare (spawn the supervisor during the checkout)';

const order = [
  'resolve executable',
  'git.locate',
  'fs.exists (free name?)',
  'fs.mkdirp',
  'git.addWorktree',
  '  git version',
  '  git worktree add --no-checkout',
  '  git worktree add',
  '  git read-tree',
  '  git hook run post-checkout',
  prepareLabel,
  '  rest of addWorktree (queue, registry files, JS)',
  'launch (spawn the supervisor)',
];

function wrapDeps(deps: AgentManagerDeps, watch: Stopwatch, adding: (on: boolean) => void): AgentManagerDeps {
  const git: ManagerGit = deps.git;
  return {
    ...deps,
    resolver: { resolve: (c) => watch.time('resolve executable', () => deps.resolver.resolve(c)) },
    git: delegateGit(git, {
      locate: (f, r, p) => watch.time('git.locate', () => git.locate(f, r, p)),
      changeSet: async (c, b) => {
        const started = now();
        const files = await git.changeSet(c, b);
        watch.refreshes.push(now() - started);
        return files;
      },
      addWorktree: (r, d, b, s, onCheckout) =>
        watch.time('git.addWorktree', async () => {
          adding(true);
          try {
            await git.addWorktree(r, d, b, s, onCheckout);
          } finally {
            adding(false);
          }
        }),
    }),
    fs: {
      exists: (p) => watch.time('fs.exists (free name?)', () => deps.fs.exists(p)),
      mkdirp: (p) => watch.time('fs.mkdirp', () => deps.fs.mkdirp(p)),
      removeDir: (p) => deps.fs.removeDir(p),
      appendText: (p, t) => deps.fs.appendText(p, t),
      writeText: (p, t) => deps.fs.writeText(p, t),
      copyInto: (s, d, r) => watch.time('fs.copyInto (.worktreeinclude)', () => deps.fs.copyInto(s, d, r)),
      linkInto: (s, d, r) => deps.fs.linkInto(s, d, r),
      readLogTail: (p, o, m) => deps.fs.readLogTail(p, o, m),
    },
    headlessRunner: {
      start: (request) => {
        const started = now();
        try {
          return deps.headlessRunner.start(request);
        } finally {
          watch.add('launch (spawn the supervisor)', now() - started);
        }
      },
      // discard() forgets each agent: the supervisor's status file goes with it.
      forget: (id) => deps.headlessRunner.forget?.(id),
      // Inside git.addWorktree's time (it runs while the checkout does): counted there and shown apart.
      prepare: (id, cwd) => {
        const started = now();
        try {
          deps.headlessRunner.prepare?.(id, cwd);
        } finally {
          watch.add(prepareLabel, now() - started);
        }
      },
      release: (id) => deps.headlessRunner.release?.(id),
    },
  };
}

export async function profileDispatch(repo: BenchRepo, demoScript: string, runs = 5): Promise<Breakdown> {
  const watch = new Stopwatch();
  let adding = false;
  const bench = createBenchManager(repo, demoScript, (deps) => wrapDeps(deps, watch, (on) => (adding = on)));
  wrapRunner(bench.git, watch, () => adding);
  const totals: number[] = [];
  try {
    for (let i = 0; i <= runs; i++) {
      await sleep(300);
      const started = now();
      const record = await bench.manager.dispatch({
        prompt: 'print hi',
        profile: 'demo',
        folder: repo.dir,
        title: `profile ${i}`,
      });
      const total = now() - started;
      watch.finishRun();
      if (i > 0) {
        totals.push(total); // run 0 is a warm-up
      }
      await bench.discard(record.id);
      // Whatever was timed while the agent ran and was discarded is not part of a dispatch: drop it.
      watch.finishRun();
      watch.runs.pop();
    }
  } finally {
    bench.dispose();
  }
  const measured = watch.runs.slice(1);
  for (const r of measured) {
    const inner = [...r]
      .filter(([label]) => label.startsWith('  ') && label !== prepareLabel)
      .reduce((sum, [, v]) => sum + v, 0);
    r.set('  rest of addWorktree (queue, registry files, JS)', (r.get('git.addWorktree') ?? 0) - inner);
  }
  const labels = [...new Set(measured.flatMap((r) => [...r.keys()]))];
  const rank = (label: string) => (order.includes(label) ? order.indexOf(label) : order.length);
  labels.sort((a, b) => rank(a) - rank(b));
  const steps = labels.map((step) => ({ step, medianMs: round(median(measured.map((r) => r.get(step) ?? 0)), 2) }));
  const topLevel = steps.filter((s) => !s.step.startsWith('  ')).reduce((sum, s) => sum + s.medianMs, 0);
  steps.push({ step: 'other (JS, queues, state saves, events)', medianMs: round(median(totals) - topLevel, 2) });
  return {
    runs,
    medianTotalMs: round(median(totals)),
    steps,
    medianRefreshMs: round(median(watch.refreshes.slice(2)), 2),
  };
}
