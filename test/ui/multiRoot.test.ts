// A multi-root workspace (a .code-workspace with two repositories and a plain folder) through the
// real UI: Dispatch Agent asks among the repositories only and the agent works in the one picked;
// with one repository left it asks nothing; with none it refuses with a message naming the folders.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchCodeServer, type CodeServerHandle } from '../harness/codeServer';
import { repoRoot, testResultsDir } from '../harness/paths';
import { createTempRepo, type TempRepo } from '../harness/tempRepo';
import { waitFor } from '../harness/waitFor';
import { answerQuickInput as answer, runCommand } from '../harness/palette';

const quickInput = '.quick-input-widget';

function agentBranches(repo: TempRepo): string[] {
  return execFileSync('git', ['for-each-ref', '--format=%(refname:short)', 'refs/heads/agents/'], {
    cwd: repo.dir,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);
}

describe('Dispatch Agent in a multi-root workspace through the real UI', function () {
  this.timeout(240_000);
  let web: TempRepo;
  let api: TempRepo;
  let scratch: string;
  let handle: CodeServerHandle | undefined;

  before(async () => {
    web = await createTempRepo({ 'web.txt': 'web\n' });
    api = await createTempRepo({ 'api.txt': 'api\n' });
    scratch = await realpath(await mkdtemp(join(tmpdir(), 'pa-multiroot-')));
    const notes = join(scratch, 'notes');
    await mkdir(notes);
    await writeFile(join(notes, 'todo.txt'), 'not versioned\n');
    const workspaceFile = join(scratch, 'multi.code-workspace');
    await writeFile(
      workspaceFile,
      JSON.stringify(
        {
          folders: [
            { path: web.dir, name: 'web' },
            { path: notes, name: 'notes' },
            { path: api.dir, name: 'api' },
          ],
        },
        null,
        2,
      ),
    );
    handle = await launchCodeServer({
      extensionDevelopmentPath: repoRoot,
      workspaceFolder: web.dir,
      workspaceFile,
      viewport: { width: 1400, height: 900 },
    });
    await handle.waitForWorkbench(90_000);
    // The palette lists the extension's commands only once its contributions are in: its view shows that.
    await handle.page.locator('.activitybar [aria-label^="Parallel Agents"]').first().click();
    await handle.page.locator('.welcome-view-content', { hasText: 'No agents yet' }).waitFor({ timeout: 30_000 });
  });

  after(async () => {
    await handle?.close();
    await web?.dispose();
    await api?.dispose();
    await rm(scratch, { recursive: true, force: true });
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && handle) {
      await mkdir(testResultsDir, { recursive: true });
      await handle.page.screenshot({ path: join(testResultsDir, 'multi-root-failure.png') }).catch(() => undefined);
    }
  });

  it('asks among the repositories only; the agent works in the one picked', async () => {
    const { page } = handle!;
    await runCommand(page, 'Parallel Agents: Dispatch Agent');
    await page
      .locator(`${quickInput} .quick-input-title`, { hasText: 'Dispatch Agent: repository' })
      .waitFor({ state: 'visible', timeout: 20_000 });
    const rows = await page.locator(`${quickInput} .monaco-list-row`).allInnerTexts();
    assert.equal(rows.length, 2, rows.join(' | '));
    assert.match(rows[0], /web/);
    assert.match(rows[1], /api/);
    assert.ok(!rows.some((r) => /notes/.test(r)), 'the plain folder is not offered');
    await answer(page, 'Dispatch Agent: repository', 'api');
    await answer(page, '(1/4)', 'create hello.txt: from the api agent');
    await answer(page, '(2/4)', 'demo');
    await answer(page, '(3/4)', undefined);
    await answer(page, '(4/4)', 'Multi root');
    await waitFor('the agent branch in api', () => agentBranches(api).includes('agents/multi-root'), {
      timeoutMs: 30_000,
    });
    assert.deepEqual(agentBranches(web), [], 'nothing in the repository not picked');
    const worktree = `${api.dir}.worktrees/multi-root`;
    await waitFor("the agent's file", () => existsSync(join(worktree, 'hello.txt')), { timeoutMs: 30_000 });
  });

  it('one repository left among the folders: it is taken without asking', async () => {
    const { page } = handle!;
    await rename(join(web.dir, '.git'), join(web.dir, '.git-away'));
    try {
      await runCommand(page, 'Parallel Agents: Dispatch Agent');
      // The first question is the task: no repository pick.
      await page
        .locator(`${quickInput} .quick-input-title`, { hasText: '(1/4)' })
        .waitFor({ state: 'visible', timeout: 20_000 });
      await page.keyboard.press('Escape');
    } finally {
      await rename(join(web.dir, '.git-away'), join(web.dir, '.git'));
    }
    assert.deepEqual(agentBranches(web), []);
    assert.deepEqual(agentBranches(api), ['agents/multi-root'], 'a cancelled dispatch leaves nothing');
  });

  it('no repository among the folders: refused with a message naming them, nothing created', async () => {
    const { page } = handle!;
    const moved = [web.dir, api.dir];
    for (const dir of moved) {
      await rename(join(dir, '.git'), join(dir, '.git-away'));
    }
    try {
      await runCommand(page, 'Parallel Agents: Dispatch Agent');
      // The toast may be gone already: the notification center keeps every message.
      await page
        .locator('.statusbar-item[id$="notifications"] a, .statusbar-item[id$="notifications"]')
        .first()
        .click();
      const messages = page.locator('.notifications-center .notification-list-item-message');
      const refused = messages.filter({ hasText: 'None of the workspace folders' });
      await refused
        .first()
        .waitFor({ state: 'visible', timeout: 20_000 })
        .catch(async (e: Error) => {
          throw new Error(`${e.message}\nmessages: ${(await messages.allInnerTexts()).join(' | ')}`);
        });
      assert.match(
        await refused.first().innerText(),
        /None of the workspace folders \(web, notes, api\) is a git repository/,
      );
      assert.equal(
        await page.locator(`${quickInput} .quick-input-title`, { hasText: '(1/4)' }).isVisible(),
        false,
        'no question asked',
      );
    } finally {
      for (const dir of moved) {
        await rename(join(dir, '.git-away'), join(dir, '.git'));
      }
    }
    assert.deepEqual(agentBranches(web), []);
    assert.deepEqual(agentBranches(api), ['agents/multi-root']);
  });
});
