// Where 16 dispatches at once spend their time, for a person reading it (not part of `npm run bench`):
// every git process's start (>) and end (<), each supervisor's prepare and start, and each dispatch's end,
// in ms on one clock, two rounds, on a generated repository in memory (tmpfs) when there is one.
// Usage: node out/bench/burstTimeline.js [files=10000] [count=16]; PA_NO_PREPARE=1: no supervisor during
// the checkout (the agents then start at the checkout's end).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import * as path from 'node:path';
import { createBenchManager, delegateGit } from './manager';
import { createBenchRepo, memoryTempDir } from './repo';
import { now, round } from './stats';

async function main(): Promise<void> {
  const files = Number(process.argv[2] ?? 10000);
  const count = Number(process.argv[3] ?? 16);
  const demoScript = path.join(__dirname, '..', '..', 'dist', 'demoAgent.js');
  const repo = await createBenchRepo(memoryTempDir(), files / 100, 100);
  const events: [number, string][] = [];
  let t0 = 0;
  const mark = (what: string) => events.push([now() - t0, what]);
  const bench = createBenchManager(repo, demoScript, (deps) => ({
    ...deps,
    git: delegateGit(deps.git, {
      changeSet: async (c, b) => {
        mark(`changeSet start ${path.basename(c)}`);
        const r = await deps.git.changeSet(c, b);
        mark(`changeSet end ${path.basename(c)}`);
        return r;
      },
    }),
    headlessRunner: {
      ...deps.headlessRunner,
      start: (r) => {
        mark(`start ${r.agentId}`);
        const a = deps.headlessRunner.start(r);
        mark(`started ${r.agentId}`);
        return a;
      },
      prepare: (id, cwd) => {
        mark(`prepare ${id}`);
        if (!process.env.PA_NO_PREPARE) {
          deps.headlessRunner.prepare?.(id, cwd);
        }
      },
      release: (id) => deps.headlessRunner.release?.(id),
      forget: (id) => deps.headlessRunner.forget?.(id),
    },
  }));
  const runner = bench.git.runner;
  const exec = runner.exec.bind(runner);
  runner.exec = async (cwd, args, options) => {
    const label = `git ${args.slice(0, 3).join(' ')} @${path.basename(cwd)}`;
    mark(`${label} >`);
    try {
      return await exec(cwd, args, options);
    } finally {
      mark(`${label} <`);
    }
  };
  for (let round_ = 0; round_ < 2; round_++) {
    events.length = 0;
    const profiler = process.env.PA_CPU_PROFILE ? new Session() : undefined;
    profiler?.connect();
    await new Promise(
      (resolve) => profiler?.post('Profiler.enable', () => profiler.post('Profiler.start', resolve)) ?? resolve(0),
    );
    const cpu0 = process.cpuUsage();
    t0 = now();
    const ids = await Promise.all(
      Array.from({ length: count }, async () => {
        const r = await bench.manager.dispatch({
          prompt: 'print hi\nsleep 120',
          profile: 'demo',
          folder: repo.dir,
          title: 'b',
        });
        mark(`DISPATCHED ${r.id} ${r.status}`);
        return r.id;
      }),
    );
    const cpu = process.cpuUsage(cpu0);
    mark(`ALL (this process's own CPU: ${round((cpu.user + cpu.system) / 1000)} ms)`);
    if (profiler) {
      await new Promise((resolve) =>
        profiler.post('Profiler.stop', (_e, r) =>
          resolve(writeFileSync(`${process.env.PA_CPU_PROFILE}.${round_}.cpuprofile`, JSON.stringify(r.profile))),
        ),
      );
    }
    for (const [t, what] of events) {
      console.log(`${round(t).toFixed(0).padStart(6)} ${what}`);
    }
    for (const id of ids) {
      await bench.manager.stop(id);
      await bench.discard(id);
    }
    await bench.git.whenFilesDeleted();
  }
  bench.dispose();
  await repo.dispose();
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
