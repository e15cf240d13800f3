// The workbench comes up in code-server with the extension under development and the harness's
// repository open, and can be photographed (test-results/workbench.png).
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { openWorkbench, type Workbench } from '../harness/workbench';

describe('workbench (UI)', function () {
  this.timeout(180_000);
  let wb: Workbench | undefined;

  before(async () => {
    wb = await openWorkbench();
  });

  after(async () => {
    await wb?.close();
  });

  it('shows the status bar, the opened repository, and takes a screenshot', async () => {
    const { page, repo } = wb!;
    assert.ok(await page.locator('.monaco-workbench .part.statusbar').isVisible());
    assert.match(await page.title(), /Extension Development Host/);
    await page
      .locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' })
      .waitFor({ timeout: 30_000 });
    assert.ok((await page.title()).includes(basename(repo.dir)));
    const file = await wb!.screenshot('workbench');
    assert.ok(existsSync(file));
  });
});
