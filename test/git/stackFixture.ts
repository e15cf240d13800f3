// What the stacked-agent tests (stackedAgents, stackRepair) set up alike: for each test a fresh
// repository and manager, demo agents run to success, and what the tests read of their work.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager, AgentManagerDeps } from '../../src/core/agents/agentManager';
import { git, ManagerFixture } from './managerFixture';

export interface Stack {
  /** The current test's fixture and manager. */
  readonly fx: ManagerFixture;
  readonly manager: AgentManager;
  /** Dispatches `prompt` to the demo agent (on `stackOn`'s work when given); its record once it succeeded. */
  readonly agent: (prompt: string, stackOn?: string) => Promise<AgentRecord>;
  /** Runs a follow-up of agent `id` to its end; it must succeed. */
  readonly followUp: (id: string, prompt: string) => Promise<void>;
  /** The agent's changed files as `kind path`, sorted. */
  readonly changes: (id: string) => string[];
  /** Every ref of the repository with its object. */
  readonly refs: () => string;
}

/** For each test of the calling describe(): a ManagerFixture and its manager (with `overrides`), disposed of after it. */
export function eachStack(overrides: Partial<AgentManagerDeps> = {}): Stack {
  let fx: ManagerFixture | undefined;
  let manager: AgentManager | undefined;
  beforeEach(() => {
    fx = new ManagerFixture();
    manager = fx.manager(overrides);
  });
  afterEach(() => fx?.dispose());
  const current = () => {
    assert.ok(fx && manager, 'a Stack is used inside a test');
    return { fx, manager };
  };
  return {
    get fx() {
      return current().fx;
    },
    get manager() {
      return current().manager;
    },
    async agent(prompt, stackOn) {
      const { fx, manager } = current();
      const record = await manager.dispatch({ prompt, profile: 'demo', folder: fx.repo, stackOn });
      const done = await fx.finished(manager, record.id);
      assert.equal(done.status, 'succeeded', done.error);
      return done;
    },
    async followUp(id, prompt) {
      const { fx, manager } = current();
      await manager.followUp(id, prompt);
      const done = await fx.finished(manager, id);
      assert.equal(done.status, 'succeeded', done.error);
    },
    changes: (id) =>
      current()
        .manager.get(id)
        .changedFiles.map((f) => `${f.kind} ${f.path}`)
        .sort(),
    refs: () => git(current().fx.repo, 'for-each-ref', '--format=%(refname) %(objectname)'),
  };
}

export const read = (dir: string, file: string): string => fs.readFileSync(path.join(dir, file), 'utf8');
