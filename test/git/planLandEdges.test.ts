// Land Plan's two refusals, with real git: the forecast names conflicts before anything is written
// (the workspace is proved untouched, not only left at the same HEAD), and a rebase the forecast
// said was clean that git still stops (a commit of the integration branch conflicts on replay,
// though the branch as a whole does not): the conflicts are named, both worktrees as they were.
// The forecast only reads: it is answered while another write to the repository (a commit whose
// hook waits) holds the repository's write queue.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PlanRun } from '../../src/core/plans/planRun';
import { delay } from '../../src/util/async';
import type { Plan } from '../../src/core/plans/planTypes';
import { assertRestored, assertUntouched, recordWorkspace } from '../harness/untouched';
import { waitFor } from '../harness/waitFor';
import { git, ManagerFixture } from './managerFixture';
import { planRunDeps } from './planRunFixture';

describe('Land Plan refusals (real git)', function () {
  this.timeout(60000);
  let fixture: ManagerFixture;

  beforeEach(() => {
    fixture = new ManagerFixture({ 'README.md': '# sample\n', 'app.js': 'line 1\nline 2\nline 3\n' });
  });

  afterEach(async () => {
    await fixture.dispose();
  });

  const plan: Plan = { title: 'Landing', tasks: [{ id: 'one', title: 'One', prompt: 'print one' }] };

  /** A plan run whose integration branch holds `commits` (file → text, one commit each), as merged tasks leave it. */
  async function runWith(...commits: Record<string, string>[]): Promise<PlanRun> {
    const run = await PlanRun.create(planRunDeps(fixture, fixture.manager(), 1), 'land', plan, fixture.repo);
    commits.forEach((files, i) => {
      for (const [file, text] of Object.entries(files)) {
        fs.writeFileSync(path.join(run.integrationPath, file), text);
      }
      git(run.integrationPath, 'add', '-A');
      git(run.integrationPath, 'commit', '-q', '-m', `task ${i + 1}`);
    });
    return run;
  }

  const commitOnMain = (file: string, text: string) => {
    fs.writeFileSync(path.join(fixture.repo, file), text);
    git(fixture.repo, 'commit', '-q', '-am', `main changes ${file}`);
  };

  it('a forecast that names conflicts leaves the workspace untouched: nothing is merged, not even for a moment', async () => {
    const run = await runWith({ 'app.js': 'line 1\nplan\nline 3\n', 'new.txt': 'new\n' });
    commitOnMain('app.js', 'line 1\nmain\nline 3\n');
    fs.writeFileSync(path.join(fixture.repo, 'notes.txt'), 'the user’s untracked notes\n');
    const before = recordWorkspace(fixture.repo);

    for (const strategy of ['merge', 'squash', 'rebase'] as const) {
      assert.deepEqual(await run.land(strategy), { kind: 'conflicts', files: ['app.js'], target: 'main' }, strategy);
    }
    assertUntouched(before, 'the workspace');
  });

  it('a rebase git stops after a clean forecast: the conflicts are named, the workspace and the branch as they were', async () => {
    // The plan rewrote line 2, then put it back; main rewrote line 2 too. Merged whole: clean.
    const run = await runWith(
      { 'app.js': 'line 1\nplan\nline 3\n', 'new.txt': 'new\n' },
      { 'app.js': 'line 1\nline 2\nline 3\n' },
    );
    commitOnMain('app.js', 'line 1\nmain\nline 3\n');
    const tip = git(fixture.repo, 'rev-parse', run.integrationBranch);
    const [workspace, integration] = [recordWorkspace(fixture.repo), recordWorkspace(run.integrationPath)];

    assert.deepEqual(await run.land('rebase'), { kind: 'conflicts', files: ['app.js'], target: 'main' });
    assert.equal(git(fixture.repo, 'rev-parse', run.integrationBranch), tip, 'the integration branch is not rewritten');
    assertRestored(integration, 'the integration worktree: the rebase aborted');
    assertUntouched(workspace, 'the workspace');

    // The same branch merged, not replayed, lands.
    const merged = await run.land('merge');
    assert.deepEqual(merged, { kind: 'merged', sha: git(fixture.repo, 'rev-parse', 'HEAD'), target: 'main' });
    assert.equal(fs.readFileSync(path.join(fixture.repo, 'new.txt'), 'utf8'), 'new\n');
    assert.equal(fs.readFileSync(path.join(fixture.repo, 'app.js'), 'utf8'), 'line 1\nmain\nline 3\n');
  });

  it("answers a plan that would conflict at once, while another write holds the repository's queue", async () => {
    const run = await runWith({ 'app.js': 'line 1\nplan\nline 3\n' });
    commitOnMain('app.js', 'line 1\nmain\nline 3\n');
    const hold = path.join(fixture.tmp, 'hold');
    const started = path.join(fixture.tmp, 'hook-started');
    const hook = path.join(fixture.repo, '.git', 'hooks', 'pre-commit');
    fs.writeFileSync(hook, `#!/bin/sh\ntouch "${started}"\nwhile [ -e "${hold}" ]; do sleep 0.05; done\n`, {
      mode: 0o755,
    });
    fs.writeFileSync(hold, '');
    fs.writeFileSync(path.join(run.integrationPath, 'more.txt'), 'more\n');
    let committed = false;
    const commit = fixture.git
      .commitAll(run.integrationPath, 'a task merged meanwhile')
      .finally(() => (committed = true));
    try {
      await waitFor('the hook to hold the commit', () => fs.existsSync(started));
      const landed = await Promise.race([run.land('merge'), delay(5000).then(() => 'still waiting')]);
      assert.deepEqual(landed, { kind: 'conflicts', files: ['app.js'], target: 'main' });
      assert.equal(committed, false, 'the commit still holds the queue');
    } finally {
      fs.rmSync(hold, { force: true });
      await commit;
    }
    assert.equal(git(run.integrationPath, 'log', '-1', '--format=%s'), 'a task merged meanwhile');
  });
});
