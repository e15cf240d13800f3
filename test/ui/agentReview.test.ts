// Review with Agent, Edit Comment, autoReview and Continue with Another Agent through the real UI,
// like a person: the demo agent (a real process) is both the author and, under the profile
// "demo-reviewer" (machine settings; parallelAgents.reviewerProfile names it), the reviewer. That
// profile's answer holds a finding for each TODO the diff adds plus one on a file the agent never
// touched. The findings show as threads on the named lines of VS Code's diff editor, the stray one
// as a general comment; one is edited through the widget's Edit Comment, another deleted, and the
// thread's Send Review to Agent has the author act on what is left. Continue with Another Agent from
// the row menu hands a worktree to another profile; with autoReview on, a finished agent is reviewed
// without a click.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { answerQuickInput, widenSideBar } from '../harness/palette';
import { waitFor } from '../harness/waitFor';
import { openWorkbench, type Workbench } from '../harness/workbench';
import {
  agentRow,
  agentWorktrees,
  dispatchDemo,
  dispatchFileText,
  notification,
  openFileDiff,
  rowMenu,
  setMachineSettings,
  showAgentsView,
  storedAgent,
  storedAgentOnce,
  threadGlyph,
} from './agentsUi';

const demoProfile = (name: string, args: string[]) => ({
  name,
  command: '${demoAgent}',
  args,
  mode: 'headless',
  env: { DEMO_AGENT_OUTPUT: 'parallel-agents-json' },
  output: 'parallel-agents-json',
});
const stray = 'ghost.txt:3: a file the agent never touched';
const reviewer = 'Reviewer (demo-reviewer)';
const todoNotes = 'replace notes.txt: TODO => DONE';
const todoCalc = 'replace src/calc.js: TODO => DONE';
const edited = 'replace notes.txt: TODO two => 2 (edited)';

/**
 * The thread on line `line` of the diff's agent side that holds `text`, opened: its glyph drawn on
 * that line, and a click on it when its widget is not shown yet (a click on a shown one would fold it).
 */
async function openThread(
  page: Page,
  diff: Locator,
  line: number,
  text: string,
  state: 'unresolved' | 'resolved' = 'unresolved',
): Promise<Locator> {
  await threadGlyph(page, diff, line, state).waitFor({ timeout: 20_000 });
  const widget = diff.locator('.editor.modified .review-widget', { hasText: text });
  await waitFor(
    `the thread "${text}" on line ${line}`,
    async () => {
      if (await widget.isVisible()) {
        return true;
      }
      await threadGlyph(page, diff, line, state)
        .click({ timeout: 2_000 })
        .catch(() => undefined);
      return widget
        .waitFor({ timeout: 3_000 })
        .then(() => true)
        .catch(() => false);
    },
    { timeoutMs: 30_000 },
  );
  return widget;
}

/** Clicks an action of the comment's title bar in `widget` (shown on hover). */
async function commentAction(widget: Locator, label: string): Promise<void> {
  await widget.locator('.review-comment').first().hover();
  await widget.locator(`.comment-title .action-label[aria-label="${label}"]`).click();
}

describe('Review with Agent, Edit Comment, Continue with Another Agent, autoReview: the real UI', function () {
  this.timeout(300_000);
  let wb: Workbench;

  before(async () => {
    wb = await openWorkbench({
      files: {
        'README.md': '# sample\n',
        'author.md': 'create notes.txt: one\\nTODO two\\nthree\\n\ncreate src/calc.js: let a = 1;\\n// TODO b\\n\n',
        'auto.md': 'sleep 2\ncreate todo.txt: first\\nTODO second\\n\n',
      },
      viewport: { width: 1600, height: 900 },
      settings: { 'diffEditor.useInlineViewWhenSpaceIsLimited': false, 'diffEditor.renderSideBySide': true },
      machineSettings: {
        'parallelAgents.profiles': [
          demoProfile('demo-b', ['${prompt}']),
          // The demo agent as a reviewer finds each added TODO; this line adds a finding it cannot place.
          demoProfile('demo-reviewer', [`\${prompt}\nprint FINDING ${stray}`]),
        ],
        'parallelAgents.reviewerProfile': 'demo-reviewer',
      },
    });
  });

  after(async () => {
    await wb?.close();
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      await wb?.screenshot(`agent-review-failure-${this.currentTest.title.slice(0, 20)}`).catch(() => undefined);
    }
  });

  it('Review with Agent from the row menu: findings as threads on their lines, a stray one general', async () => {
    const { page } = wb;
    await widenSideBar(page, 120);
    await showAgentsView(page, page.locator('.welcome-view-content', { hasText: 'No agents yet' }));
    await dispatchFileText(page, 'author.md', 'create src/calc.js', 'Author');
    await agentRow(page, 'Author').filter({ hasText: 'succeeded' }).waitFor({ timeout: 30_000 });

    await rowMenu(page, 'Author', 'Review with Agent');
    const told = await notification(page, 'The reviewer (demo-reviewer) left 3 comment(s)');
    assert.match(told, /on the changes of agent "Author", 1 of them general/);
    assert.deepEqual(
      storedAgent(wb, 'Author').record.comments?.map((c) => [
        c.path,
        c.startLine,
        c.reviewer,
        c.general ?? false,
        c.body,
      ]),
      [
        ['notes.txt', 2, 'demo-reviewer', false, todoNotes],
        ['src/calc.js', 2, 'demo-reviewer', false, todoCalc],
        ['notes.txt', 1, 'demo-reviewer', true, stray],
      ],
    );

    // In the diff editors: each thread on its line, written by the reviewer, pending.
    let diff = await openFileDiff(page, 'Author', 'calc.js');
    let thread = await openThread(page, diff, 2, todoCalc);
    assert.match(await thread.innerText(), /Pending: not sent yet/);
    assert.ok((await thread.innerText()).includes(reviewer), 'written by the reviewer');
    diff = await openFileDiff(page, 'Author', 'notes.txt');
    thread = await openThread(page, diff, 2, todoNotes);
    assert.match(await thread.innerText(), /Reviewer \(demo-reviewer\)/);
    const general = await openThread(page, diff, 1, stray);
    const generalLabel = /General comment \(its place is not in the diff\) · Pending: not sent yet/;
    assert.match(await general.innerText(), generalLabel);
    assert.match(await general.innerText(), /Reviewer \(demo-reviewer\)/);
    await wb.screenshot('agent-review-threads');
  });

  it('Edit Comment and Delete Comment in the widget, then Send Review: the author acts on the kept ones', async () => {
    const { page } = wb;
    const worktree = (await agentWorktrees(wb))[0];
    let diff = await openFileDiff(page, 'Author', 'calc.js');
    await commentAction(await openThread(page, diff, 2, todoCalc), 'Delete Comment');
    await waitFor('the deleted comment gone from the record', () =>
      storedAgent(wb, 'Author').record.comments?.every((c) => c.body !== todoCalc),
    );
    await threadGlyph(page, diff, 2, 'unresolved').waitFor({ state: 'detached', timeout: 15_000 });

    diff = await openFileDiff(page, 'Author', 'notes.txt');
    await commentAction(await openThread(page, diff, 2, todoNotes), 'Edit Comment');
    await page.locator('.quick-input-widget input.input').waitFor({ timeout: 15_000 });
    assert.equal(
      await page.locator('.quick-input-widget input.input').inputValue(),
      todoNotes,
      'the box holds the text',
    );
    await answerQuickInput(page, 'Edit Comment', edited);
    const thread = await openThread(page, diff, 2, edited);
    assert.match(await thread.innerText(), /Reviewer \(demo-reviewer\)/, 'still the reviewer’s comment');
    assert.deepEqual(
      storedAgent(wb, 'Author').record.comments?.map((c) => c.body),
      [edited, stray],
    );

    // The thread's own Send Review to Agent.
    await thread.hover();
    await thread.locator('.head .action-label[aria-label="Send Review to Agent"]').click();
    const done = await waitFor(
      'the review run to end with the edited comment addressed',
      () => {
        const { record } = storedAgent(wb, 'Author');
        return record.status === 'succeeded' && record.comments?.[0]?.addressed && record;
      },
      { timeoutMs: 60_000 },
    );
    assert.equal(done.followUps?.length, 1);
    const prompt = done.followUps![0];
    assert.ok(prompt.includes(edited), prompt);
    assert.ok(prompt.includes(stray), prompt);
    assert.ok(!prompt.includes(todoCalc), `the deleted comment is not sent: ${prompt}`);
    assert.deepEqual(
      done.comments?.map((c) => [c.body, typeof c.sentAt, !!c.addressed]),
      [
        [edited, 'number', true],
        [stray, 'number', false],
      ],
    );
    assert.equal(readFileSync(join(worktree, 'notes.txt'), 'utf8'), 'one\n2 (edited)\nthree\n');
    assert.equal(readFileSync(join(worktree, 'src/calc.js'), 'utf8'), 'let a = 1;\n// TODO b\n', 'deleted: not done');
    const addressed = await openThread(page, diff, 2, edited, 'resolved');
    assert.match(await addressed.innerText(), /Addressed: the agent changed these lines/);
    assert.match(await (await openThread(page, diff, 1, stray)).innerText(), /Sent to the agent/);
  });

  it('Continue with Another Agent from the row menu: another profile goes on in the same worktree', async () => {
    const { page } = wb;
    await dispatchDemo(page, 'create log.txt: first\\n', 'Relay');
    const row = agentRow(page, 'Relay');
    await row.filter({ hasText: 'demo · succeeded' }).waitFor({ timeout: 30_000 });
    const worktree = storedAgent(wb, 'Relay').record.cwd;
    const worktrees = await agentWorktrees(wb);

    await rowMenu(page, 'Relay', 'Continue with Another Agent');
    await page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Continue "Relay" with which agent?' })
      .waitFor({ timeout: 15_000 });
    const names = await page
      .locator('.quick-input-widget .monaco-list-row .label-name')
      .allInnerTexts()
      .then((all) => all.map((n) => n.trim()));
    assert.ok(names.includes('demo-b') && names.includes('demo-reviewer'), `the other profiles: ${names.join(', ')}`);
    assert.ok(!names.includes('demo'), `not the agent's own profile: ${names.join(', ')}`);
    await answerQuickInput(page, undefined, 'demo-b');
    await answerQuickInput(page, 'Continue "Relay" with demo-b', 'append log.txt: second\\n');

    await row.filter({ hasText: 'demo-b · succeeded' }).waitFor({ timeout: 30_000 });
    const { record } = await storedAgentOnce(wb, 'Relay', (r) => (r.runs ?? []).every((run) => run.endedAt));
    assert.equal(record.profile, 'demo-b');
    assert.equal(record.cwd, worktree, 'the same worktree');
    assert.deepEqual(await agentWorktrees(wb), worktrees, 'no new worktree');
    assert.equal(readFileSync(join(worktree, 'log.txt'), 'utf8'), 'first\nsecond\n');
    assert.deepEqual(
      record.runs?.map((r) => r.profile),
      ['demo', 'demo-b'],
    );

    // The hover says who ran when.
    const time = String.raw`\d{1,2}:\d{2}:\d{2}(?:\s?[AP]M)?`;
    const hover = page.locator('.monaco-hover, .workbench-hover', { hasText: 'Runs' }).first();
    // The first hover: it holds the worktree's size (measured while it was built) and stays open (a redraw
    // of the row under the mouse would close it).
    await page.mouse.move(0, 0);
    await row.locator('.label-name').first().hover();
    const text = await hover.innerText({ timeout: 10_000 });
    assert.match(text, new RegExp(`demo ${time}–${time}, demo-b ${time}–${time}`));
    assert.match(text, /Disk/);
    await page.waitForTimeout(2_000);
    assert.ok(await hover.isVisible(), 'the hover is still open 2 s later');
    // Some seconds after both runs ended: autoReview is off, so no reviewer ran by itself.
    assert.equal(storedAgent(wb, 'Relay').record.comments, undefined, 'no review by itself');
  });

  it('with autoReview on, a finished agent is reviewed without a click', async () => {
    const { page } = wb;
    // As a person editing the machine settings file; the task's first line (sleep 2) leaves the window time to read it.
    setMachineSettings(wb, { 'parallelAgents.autoReview': true });
    await page.waitForTimeout(1_000);
    await dispatchFileText(page, 'auto.md', 'create todo.txt', 'Auto');
    await agentRow(page, 'Auto').filter({ hasText: 'succeeded' }).waitFor({ timeout: 30_000 });
    const told = await notification(page, 'The reviewer (demo-reviewer) left 2 comment(s)');
    assert.match(told, /agent "Auto", 1 of them general/);
    assert.deepEqual(
      storedAgent(wb, 'Auto').record.comments?.map((c) => [
        c.path,
        c.startLine,
        c.reviewer,
        c.general ?? false,
        c.body,
      ]),
      [
        ['todo.txt', 2, 'demo-reviewer', false, 'replace todo.txt: TODO => DONE'],
        ['todo.txt', 1, 'demo-reviewer', true, stray],
      ],
    );
    const diff = await openFileDiff(page, 'Auto', 'todo.txt');
    const thread = await openThread(page, diff, 2, 'replace todo.txt: TODO => DONE');
    assert.match(await thread.innerText(), /Pending: not sent yet[\s\S]*Reviewer \(demo-reviewer\)/);
    await openThread(page, diff, 1, stray);
    await wb.screenshot('agent-review-auto');
  });
});
