// Two windows on one repository, each with its own AgentManager and PlanService on the repository's
// registry, as two extension hosts build them: one drives a plan run, the other follows it live,
// cannot drive it while its driver is open, asks it to stop, and takes it over once the driver's
// window process is gone. Real git, real demo agents under the real supervisor, real processes as
// windows' identities (a window whose process ended is gone).
import * as assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentError } from '../../src/core/errors';
import { PlanService } from '../../src/core/plans/planService';
import type { Plan, PlanRunRecord, WindowId } from '../../src/core/plans/planTypes';
import { registryDirSync } from '../../src/node/registry/location';
import { openRegistryStore } from './registryFixture';
import { NodeWindowPresence, processWindow } from '../../src/node/windowPresence';
import { englishMessage } from '../../src/ui/errorText';
import { waitFor as poll } from '../harness/waitFor';
import { git, ManagerFixture } from './managerFixture';
import { planRunDeps } from './planRunFixture';
import { windowManager } from './twoWindows';
import { ended, longLivedProcess } from './windowProcesses';

const waitFor = <T>(what: string, probe: () => T | undefined | false | null, timeoutMs = 30_000) =>
  poll(what, probe, { timeoutMs, everyMs: 50 });

interface Win {
  readonly manager: AgentManager;
  readonly plans: PlanService;
  readonly presence: NodeWindowPresence;
}

describe('plan runs in two windows on one repository (real git, real agents, real processes)', function () {
  this.timeout(120_000);
  let fx: ManagerFixture;
  const disposables: { dispose(): void }[] = [];
  const children: ChildProcess[] = [];

  beforeEach(() => {
    fx = new ManagerFixture();
  });

  afterEach(async () => {
    disposables
      .splice(0)
      .reverse()
      .forEach((d) => d.dispose());
    children.splice(0).forEach((c) => c.kill('SIGKILL'));
    await fx.dispose();
  });

  const registry = () => registryDirSync(fx.repo) as string;

  function plansStore() {
    const s = openRegistryStore<PlanRunRecord>(registry(), { kind: 'plans' });
    disposables.push(s);
    return s;
  }

  /** A window: its stores, runner, manager and plan service on the repository's registry. */
  const window = (name: string, self?: WindowId): Win => {
    let n = 0;
    const manager = windowManager(fx, name, disposables);
    const presence = new NodeWindowPresence(self);
    const plans = new PlanService(planRunDeps(fx, manager, 2), plansStore(), () => `${name}run${n++}`, {
      presence,
    });
    disposables.push(presence, plans);
    manager.resume();
    return { manager, plans, presence };
  };

  /** The run's record as on disk now. */
  const onDisk = (runId: string): PlanRunRecord =>
    (JSON.parse(fs.readFileSync(path.join(registry(), 'plans', `${runId}.json`), 'utf8')) as { record: PlanRunRecord })
      .record;

  const states = (w: Win, runId: string) => Object.fromEntries(w.plans.find(runId)?.scheduler.states() ?? []);

  it('B shows the run A drives as A writes it, cannot drive it, and its Stop is done by A', async () => {
    const a = window('a');
    const b = window('b');
    a.plans.resume();
    b.plans.resume();
    const plan: Plan = {
      title: 'Driven by A',
      tasks: [
        { id: 'quick', title: 'Quick', prompt: 'create quick.txt: quick' },
        { id: 'next', title: 'Next', prompt: 'create next.txt: next', dependsOn: ['quick'] },
        { id: 'long', title: 'Long', prompt: 'print working\nsleep 40\ncreate long.txt: long' },
      ],
    };
    const run = await a.plans.start(plan, fx.repo);
    await waitFor('B to list the run', () => b.plans.find(run.id));
    const seen = new Set<string>();
    await waitFor("B to show A's progress: quick and next merged, long running", () => {
      const s = states(b, run.id);
      seen.add(JSON.stringify(s));
      return s.quick === 'done' && s.next === 'done' && s.long === 'running';
    });
    assert.ok(seen.size >= 2, `B saw the run move (${[...seen].join(' → ')})`);
    assert.equal(b.plans.drivenElsewhere(run.id), true);
    assert.equal(a.plans.drivenElsewhere(run.id), false);
    assert.deepEqual(onDisk(run.id).driver, a.presence.self, 'A is the driver on disk');

    for (const act of [() => b.plans.retry(run.id, 'long'), () => b.plans.skip(run.id, 'next')]) {
      await assert.rejects(
        act(),
        (e) => AgentError.isCode(e, 'planDrivenElsewhere') && /run by another open window/.test(englishMessage(e)),
      );
    }
    assert.deepEqual(onDisk(run.id).driver, a.presence.self, 'B did not take the run');

    await b.plans.stop(run.id);
    await waitFor(
      'A to stop the run B asked to stop',
      () => a.plans.get(run.id).scheduler.states().get('long') === 'stopped',
    );
    assert.equal(a.plans.get(run.id).scheduler.stopped, true);
    await waitFor(
      'B to show it stopped',
      () => states(b, run.id).long === 'stopped' && b.plans.get(run.id).scheduler.stopped,
    );
    await waitFor('the stop request to be cleared', () => onDisk(run.id).stopRequested === undefined && onDisk(run.id));
    assert.deepEqual(onDisk(run.id).driver, a.presence.self, 'A still drives it');
    const agents = b.manager.list().filter((r) => r.plan?.runId === run.id);
    assert.deepEqual(agents.map((r) => r.plan?.taskId).sort(), ['long', 'next', 'quick'], 'each task ran once');
  });

  it("A's window process is gone: B takes the run over within one check (every 2 s) and finishes it", async () => {
    const aProcess = longLivedProcess();
    children.push(aProcess);
    const a = window('a', processWindow(aProcess.pid as number, 'window-a'));
    const b = window('b');
    a.plans.resume();
    b.plans.resume();
    const plan: Plan = {
      title: 'Outlives its window',
      tasks: [
        { id: 'slow', title: 'Slow', prompt: 'print started\nsleep 8\ncreate slow.txt: slow work' },
        {
          id: 'after',
          title: 'After',
          prompt: 'replace slow.txt: slow work => slow work\ncreate after.txt: after',
          dependsOn: ['slow'],
        },
        { id: 'quick', title: 'Quick', prompt: 'create quick.txt: quick' },
      ],
    };
    const run = await a.plans.start(plan, fx.repo);
    // A closes once its agents run (a window closed mid-dispatch leaves a task to start again, see planReload).
    const slowAgent = await waitFor(
      "B to follow the run and slow's agent running",
      () => b.manager.isRunning(run.agentOf('slow') ?? '') && b.plans.drivenElsewhere(run.id) && run.agentOf('slow'),
    );
    await waitFor('quick to be merged', () => states(b, run.id).quick === 'done');
    // A's window closes as VS Code closes it; its process lives on a while (as a slow exit would).
    await a.manager.flush();
    await a.plans.flush();
    a.manager.dispose();
    a.plans.dispose();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.equal(onDisk(run.id).driver?.instance, 'window-a', 'a live driver is not taken over');
    assert.equal(b.plans.drivenElsewhere(run.id), true);

    aProcess.kill('SIGKILL');
    await ended(aProcess);
    const gone = Date.now();
    await waitFor('B to drive the run', () => onDisk(run.id).driver?.instance === b.presence.self.instance, 10_000);
    const took = Date.now() - gone;
    console.log(`      measured: B took the run over ${took} ms after A's process ended`);
    assert.ok(took < 5000, `taken over in ${took} ms`);
    assert.equal(b.plans.drivenElsewhere(run.id), false);

    const taken = b.plans.get(run.id);
    await waitFor('the run to finish in B', () => taken.scheduler.finished, 60_000);
    const files = git(fx.repo, 'ls-tree', '-r', '--name-only', run.integrationBranch).split('\n');
    for (const file of ['slow.txt', 'after.txt', 'quick.txt']) {
      assert.ok(files.includes(file), `${file} is on the integration branch`);
    }
    assert.equal(taken.agentOf('slow'), slowAgent, "B followed A's agent of slow, not a new one");
    assert.equal(b.manager.get(slowAgent).status, 'merged');
    assert.equal(b.manager.get(taken.agentOf('after') as string).status, 'merged');
    assert.equal(b.manager.list().filter((r) => r.plan?.runId === run.id).length, 3, 'no task ran twice');
    await b.plans.flush();
    assert.equal(onDisk(run.id).scheduler.tasks.after.state, 'done', 'B saves its progress');
  });

  it('a window opened after the driver closed (its record names a process that ended) drives the run at once', async () => {
    const gone = longLivedProcess();
    children.push(gone);
    const a = window('a', processWindow(gone.pid as number, 'window-gone'));
    a.plans.resume();
    const run = await a.plans.start(
      { title: 'Reopened', tasks: [{ id: 'one', title: 'One', prompt: 'print one\nsleep 2\ncreate one.txt: one' }] },
      fx.repo,
    );
    await waitFor(
      'the task to run',
      () => a.manager.list().find((r) => r.id === run.agentOf('one'))?.status === 'running',
    );
    await a.manager.flush();
    await a.plans.flush();
    a.manager.dispose();
    a.plans.dispose();
    gone.kill('SIGKILL');
    await ended(gone);

    const c = window('c');
    assert.equal(c.plans.drivenElsewhere(run.id), false, 'a gone driver is not shown as driving');
    c.plans.resume();
    await waitFor('C to drive it', () => onDisk(run.id).driver?.instance === c.presence.self.instance, 5000);
    await waitFor('the run to finish in C', () => c.plans.get(run.id).scheduler.finished, 30_000);
    assert.equal(c.manager.list().filter((r) => r.plan?.runId === run.id).length, 1, "C followed A's agent to its end");
  });
});
