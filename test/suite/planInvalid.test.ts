// Invalid plans through the real Dispatch Plan command in a real VS Code: the error the user is
// shown names the problem and the task, and nothing starts: no agent, no plan run, no worktree, no
// branch, no ref, and the workspace's files are as they were.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ParallelAgentsApi } from '../../src/extension';
import { activateApi, git, workspaceDir } from './helpers';

interface Case {
  readonly name: string;
  readonly plan: unknown;
  /** The task the problem is about. */
  readonly taskId: string;
  /** Each must be in the message the user is shown. */
  readonly expected: readonly RegExp[];
}

const cases: readonly Case[] = [
  {
    name: 'a cycle between tasks',
    taskId: 'schema',
    plan: {
      title: 'Cyclic',
      tasks: [
        { id: 'schema', title: 'Schema', prompt: 'create db.txt: schema', dependsOn: ['api'] },
        { id: 'api', title: 'API', prompt: 'create api.txt: api', dependsOn: ['schema'] },
        { id: 'docs', title: 'Docs', prompt: 'create docs.txt: docs' },
      ],
    },
    expected: [/task "schema" .*dependsOn forms a cycle: schema → api → schema/],
  },
  {
    name: 'a task with an unknown profile',
    taskId: 'ghost',
    plan: {
      title: 'Unknown profile',
      tasks: [
        { id: 'fine', title: 'Fine', prompt: 'create fine.txt: ok' },
        { id: 'ghost', title: 'Ghost', prompt: 'create ghost.txt: boo', profile: 'no-such-agent', dependsOn: ['fine'] },
      ],
    },
    expected: [/task "ghost" .*unknown profile "no-such-agent"/],
  },
  {
    name: 'a dependency on a task that does not exist',
    taskId: 'only',
    plan: {
      title: 'Dangling',
      tasks: [{ id: 'only', title: 'Only', prompt: 'create x.txt: x', dependsOn: ['missing'] }],
    },
    expected: [/task "only" .*dependsOn names unknown task "missing"/],
  },
];

/** What could show that something started: agents, plan rows, worktrees, branches, refs, files. */
function snapshot(api: ParallelAgentsApi): Record<string, unknown> {
  return {
    agents: api.agents().map((a) => a.id),
    rows: api.viewSnapshot().map((r) => r.label),
    worktrees: git('worktree', 'list', '--porcelain'),
    refs: git('for-each-ref', '--format=%(refname) %(objectname)'),
    status: git('status', '--porcelain', '--untracked-files=all'),
  };
}

describe('Invalid plans through Dispatch Plan in a real VS Code', function () {
  this.timeout(60_000);
  let api: ParallelAgentsApi;
  let shown: string[];
  let original: typeof vscode.window.showErrorMessage;

  before(async () => {
    api = await activateApi();
    // The extension shares this vscode API object: the real call still happens, its message is kept.
    original = vscode.window.showErrorMessage;
    (vscode.window as { showErrorMessage: unknown }).showErrorMessage = (message: string, ...rest: never[]) => {
      shown.push(message);
      return original(message, ...rest);
    };
  });

  after(() => {
    (vscode.window as { showErrorMessage: unknown }).showErrorMessage = original;
  });

  beforeEach(() => {
    shown = [];
  });

  for (const c of cases) {
    // A file name of its own: VS Code keeps an opened document, a rewritten file may be read from memory.
    const name = `invalid-${c.taskId}.agents.json`;
    it(`refuses ${c.name} from a plan file: the message names the task and the problem, nothing starts`, async () => {
      const before = snapshot(api);
      const file = path.join(workspaceDir(), name);
      fs.writeFileSync(file, `${JSON.stringify(c.plan, null, 2)}\n`);
      try {
        const result = await vscode.commands.executeCommand('parallelAgents.dispatchPlan', vscode.Uri.file(file));
        assert.equal(result, undefined, 'no plan run id');
        assert.equal(shown.length, 1, `one error shown: ${shown.join(' | ')}`);
        assert.ok(shown[0].startsWith(`${name} is not a valid plan (`), shown[0]);
        for (const pattern of c.expected) {
          assert.match(shown[0], pattern);
        }
        const diagnostics = vscode.languages
          .getDiagnostics(vscode.Uri.file(file))
          .map((d) => d.message)
          .join('\n');
        assert.match(diagnostics, new RegExp(`^task "${c.taskId}": `, 'm'), 'the problem is on the plan file too');
      } finally {
        fs.rmSync(file, { force: true });
      }
      assert.deepEqual(snapshot(api), before, 'nothing started');
    });
  }

  it('refuses an invalid plan given as text the same way', async () => {
    const before = snapshot(api);
    const result = await vscode.commands.executeCommand('parallelAgents.dispatchPlan', {
      text: JSON.stringify(cases[1].plan),
    });
    assert.equal(result, undefined);
    assert.equal(shown.length, 1, shown.join(' | '));
    assert.match(shown[0], /^plan is not a valid plan \(1 problem/);
    assert.match(shown[0], cases[1].expected[0]);
    assert.deepEqual(snapshot(api), before, 'nothing started');
  });
});
