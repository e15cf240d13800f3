// The sampler on real agents: a running demo agent's process tree (its supervisor, the agent) is
// found from the manager, measured from /proc, and dropped once the agent ends.
import * as assert from 'node:assert/strict';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { procTable } from '../../src/node/procTable';
import { WindowAgentCosts } from '../../src/ui/agentCosts';
import { nodeFolderSizes } from '../../src/node/folderSizes';
import { ManagerFixture } from './managerFixture';

describe("An agent's CPU and memory, from its real process tree", function () {
  this.timeout(60000);
  let fx: ManagerFixture;
  let manager: AgentManager;

  beforeEach(function () {
    if (!procTable()) {
      this.skip(); // Linux only (README)
    }
    fx = new ManagerFixture();
    manager = fx.manager();
  });

  afterEach(() => fx?.dispose());

  /** The Agents view's visibility, as the test sets it. */
  function fakeView(initially: boolean) {
    const listeners = new Set<(e: { visible: boolean }) => void>();
    const view = {
      visible: initially,
      onDidChangeVisibility: (listener: (e: { visible: boolean }) => void) => {
        listeners.add(listener);
        return { dispose: () => listeners.delete(listener) };
      },
      show: () => ((view.visible = true), listeners.forEach((l) => l({ visible: true }))),
    };
    return view;
  }

  async function until(probe: () => boolean, ms = 15000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!probe() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it("samples an agent dispatched while the view is visible, from the manager's events alone", async () => {
    const costs = new WindowAgentCosts(manager, procTable(), nodeFolderSizes, fakeView(true));
    try {
      const record = await manager.dispatch({ prompt: 'sleep 8', profile: 'demo', folder: fx.repo, title: 'Seen' });
      await until(() => costs.usage(record.id)?.cpuPercent !== undefined);
      assert.ok(costs.usage(record.id)?.cpuPercent !== undefined, 'CPU after two samples');
      await manager.stop(record.id);
    } finally {
      costs.dispose();
    }
  });

  it("shows a running demo agent's tree while wanted, and nothing once it ended", async () => {
    const view = fakeView(false);
    const costs = new WindowAgentCosts(manager, procTable(), nodeFolderSizes, view);
    try {
      const record = await manager.dispatch({ prompt: 'sleep 8', profile: 'demo', folder: fx.repo, title: 'Sampled' });
      assert.ok(manager.processOf(record.id), 'the root process of its run is known');
      await new Promise((resolve) => setTimeout(resolve, 4000));
      assert.equal(costs.usage(record.id), undefined, 'the view is hidden: nothing sampled');
      view.show();
      await until(() => costs.usage(record.id)?.cpuPercent !== undefined);
      const usage = costs.usage(record.id);
      assert.ok(usage?.cpuPercent !== undefined, 'CPU after two samples');
      assert.ok(usage.rssBytes > 1024 * 1024, `memory: ${usage.rssBytes}`);
      assert.ok(usage.processes >= 2, `the supervisor and the agent: ${usage.processes}`);
      await fx.finished(manager, record.id);
      await new Promise((resolve) => setTimeout(resolve, 3500));
      assert.equal(costs.usage(record.id), undefined, 'an ended agent has no figures');
    } finally {
      costs.dispose();
    }
  });

  it("a hover's worktree size: measured in time, its row is not redrawn (which would close the hover); late, it is", async () => {
    const costs = new WindowAgentCosts(manager, procTable(), nodeFolderSizes, fakeView(false));
    try {
      const quick = await manager.dispatch({ prompt: 'create a.txt: a', profile: 'demo', folder: fx.repo, title: 'Q' });
      const late = await manager.dispatch({ prompt: 'create b.txt: b', profile: 'demo', folder: fx.repo, title: 'L' });
      await fx.finished(manager, quick.id);
      await fx.finished(manager, late.id);
      // Their ends are told (the sampler drops them) before the sizes are asked for.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const redrawn: string[] = [];
      costs.onDidChange((ids) => redrawn.push(...ids));
      const done = manager.get(quick.id);
      assert.equal(costs.diskBytes(done), undefined);
      await costs.measureWithin(done, 30_000);
      assert.ok((costs.diskBytes(done) ?? 0) > 0, 'measured before the hover is built');
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(redrawn.length, 0, 'no redraw: the hover stays');
      await costs.measureWithin(done, 30_000); // current: nothing to do
      const ended = manager.get(late.id);
      // No wait: a small worktree may still be measured in time (then no redraw), else once it is.
      await costs.measureWithin(ended, 0);
      const inTime = costs.diskBytes(ended) !== undefined;
      await until(() => costs.diskBytes(ended) !== undefined && (inTime || redrawn.includes(late.id)));
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(
        redrawn,
        inTime ? [] : [late.id],
        `measured ${inTime ? 'in time: no redraw' : 'late: one redraw'}`,
      );
      assert.ok((costs.diskBytes(ended) ?? 0) > 0);
    } finally {
      costs.dispose();
    }
  });
});
