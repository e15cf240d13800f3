// The agent's account in words (ui/account/accountText.ts, accountMarkdown.ts), read in English
// through the same templates vscode.l10n.t translates: durations, "3 files, +12 −4", the first line
// of a final message, the finish notification's text and the account document.
import * as assert from 'node:assert/strict';
import type { AgentRecord } from '../../src/core/agent';
import { accountMarkdown, maxFileRows } from '../../src/ui/account/accountMarkdown';
import {
  elapsed,
  finishStats,
  finishedText,
  firstLine,
  formatDuration,
  pausedNoticeText,
  saidLimit,
  statsText,
} from '../../src/ui/account/accountText';
import { type ErrorText, fill } from '../../src/ui/errorText';
import { agentRecord } from './agentRecords';

const english = (text: ErrorText): string => fill(text.template, text.args);

const finished = (extra: Partial<AgentRecord> = {}): AgentRecord =>
  agentRecord('fix', {
    title: 'Fix the parser',
    status: 'succeeded',
    createdAt: 1_000,
    startedAt: 2_000,
    endedAt: 2_000 + 130_000,
    changedFiles: [
      { path: 'src/parser.ts', kind: 'modified', binary: false, added: 10, removed: 4 },
      { path: 'test/parser.test.ts', kind: 'untracked', binary: false, added: 2, removed: 0 },
      { path: 'docs/logo.png', kind: 'added', binary: true },
    ],
    ...extra,
  });

describe('agent account texts', () => {
  it('formats durations in seconds, minutes and hours', () => {
    assert.equal(formatDuration(0), '0s');
    assert.equal(formatDuration(999), '0s');
    assert.equal(formatDuration(12_400), '12s');
    assert.equal(formatDuration(130_000), '2m 10s');
    assert.equal(formatDuration(60_000), '1m 00s');
    assert.equal(formatDuration(3_900_000), '1h 05m');
    assert.equal(formatDuration(-5_000), '0s', 'a clock that went back reads as no time');
  });

  it('measures a run from its start to its end, or to now while it runs', () => {
    assert.equal(elapsed({ createdAt: 1, startedAt: 10, endedAt: 70 }, 1_000), 60);
    assert.equal(elapsed({ createdAt: 1, startedAt: 10 }, 1_000), 990);
    assert.equal(elapsed({ createdAt: 1 }, 1_000), 999, 'a queued agent counts from its creation');
  });

  it('says what a change set adds up to', () => {
    assert.equal(statsText({ files: 3, added: 12, removed: 4, uncounted: 0 }, english), '3 files, +12 −4');
    assert.equal(statsText({ files: 1, added: 0, removed: 7, uncounted: 0 }, english), '1 file, +0 −7');
    assert.equal(statsText({ files: 0, added: 0, removed: 0, uncounted: 0 }, english), '0 files');
    assert.equal(
      statsText({ files: 3, added: 5, removed: 1, uncounted: 1 }, english),
      '3 files, +5 −1 (1 not counted)',
    );
    assert.equal(
      statsText({ files: 2, added: 0, removed: 0, uncounted: 2 }, english),
      '2 files',
      'a record from before counts were kept shows no line counts at all',
    );
  });

  it('puts the changes and the duration together: "3 files, +12 −4, 2m 10s"', () => {
    assert.equal(finishStats(finished(), 0, english), '3 files, +12 −4, 2m 10s');
  });

  it('takes the first non-blank line of a final message, cut with an ellipsis', () => {
    assert.equal(firstLine('\n  \n  Fixed the parser.  \nDetails follow.', 80), 'Fixed the parser.');
    assert.equal(firstLine('abcdefghij', 5), 'abcd…');
    assert.equal(firstLine('abcde', 5), 'abcde');
    assert.equal(firstLine(' \n ', 5), undefined);
    assert.equal(firstLine(undefined, 5), undefined);
  });

  it('tells of an agent finished with its stats and the first line of its final message', () => {
    assert.equal(
      finishedText(finished(), 0, english),
      'Agent "Fix the parser" finished — 3 files, +12 −4, 2m 10s',
      'without a final message, the stats alone',
    );
    const said = finished({ activity: { result: 'Fixed the off-by-one in the parser.\n\n- src/parser.ts' } });
    assert.equal(
      finishedText(said, 0, english),
      'Agent "Fix the parser" finished — 3 files, +12 −4, 2m 10s: Fixed the off-by-one in the parser.',
    );
    const long = finishedText(finished({ activity: { result: 'x'.repeat(500) } }), 0, english);
    assert.ok(long.endsWith(`: ${'x'.repeat(saidLimit - 1)}…`), long);
  });

  it("tells of an agent paused on its provider's limit at its first pause in a row, with when it resumes", () => {
    const quota = { provider: 'claude', pausedAt: 0, resumeAt: 1, resetGiven: true, attempt: 1, message: 'limit' };
    assert.equal(
      pausedNoticeText(finished({ status: 'paused', quota }), '15:04', english),
      'Agent "Fix the parser" paused on the limit of claude; it resumes by itself at 15:04',
    );
    assert.equal(
      pausedNoticeText(finished({ status: 'paused', quota: { ...quota, resetGiven: false } }), '15:04', english),
      'Agent "Fix the parser" paused on the limit of claude; it tries again by itself at 15:04',
      'after a backoff (no reset time given)',
    );
    assert.equal(
      pausedNoticeText(finished({ status: 'paused', quota: { ...quota, attempt: 2 } }), '15:04', english),
      undefined,
    );
    assert.equal(pausedNoticeText(finished({ quota }), '15:04', english), undefined, 'not paused');
  });
});

describe('agent account document', () => {
  const facts = { now: 0, status: 'succeeded' };

  it('shows the title, status, stats, check, usage, final message, files and task', () => {
    const record = finished({
      prompt: 'Fix the parser',
      followUps: ['Also add a test'],
      branch: 'agents/fix',
      viewedFiles: { 'src/parser.ts': 'abc' },
      activity: {
        result: 'Fixed the off-by-one.\n\n**Why:** the loop ended early.',
        turns: 4,
        inputTokens: 12_000,
        outputTokens: 345,
        costUsd: 0.0123,
      },
    });
    const text = accountMarkdown(record, { ...facts, check: 'npm test passed' }, english);
    const lines = text.split('\n');
    assert.equal(lines[0], "# Agent's account: Fix the parser");
    for (const row of [
      '- **Status:** succeeded',
      '- **Profile:** demo',
      '- **Duration:** 2m 10s',
      '- **Changes:** 3 files, +12 −4',
      '- **Reviewed:** 1 of 3 files viewed',
      '- **Check:** npm test passed',
      '- **Turns:** 4',
      `- **Tokens:** ${(12_000).toLocaleString()} in, 345 out`,
      '- **Cost:** $0.0123',
      '- **Branch:** agents/fix',
      '- M `src/parser.ts` +10 −4 ✓ Viewed',
      '- U `test/parser.test.ts` +2 −0',
      '- A `docs/logo.png` (binary)',
    ]) {
      assert.ok(lines.includes(row), `has the line ${row}\n${text}`);
    }
    const message = text.indexOf('## Final message\n\nFixed the off-by-one.\n\n**Why:** the loop ended early.\n');
    assert.ok(message > 0, text);
    assert.ok(text.indexOf('## Files') > message, 'the files come after the final message');
    assert.ok(
      text.includes('## Task\n\n```text\nFix the parser\n```\n\nFollow-up 1:\n\n```text\nAlso add a test\n```\n'),
    );
    assert.ok(!text.includes('**Error:**') && !text.includes('**Denied:**'), 'rows without a value are left out');
  });

  it('says why there is no final message, and fences text whose backticks would end a plain fence', () => {
    const running = accountMarkdown(agentRecord('a', { prompt: 'say ```hi```' }), facts, english);
    assert.match(running, /_The agent is still working: its final message comes when it ends\._/);
    assert.ok(running.includes('````text\nsay ```hi```\n````'), running);
    const silent = accountMarkdown(finished(), facts, english);
    assert.match(silent, /_No final message: the CLI reported none/);
    const odd = accountMarkdown(
      finished({ changedFiles: [{ path: 'a`b.txt', kind: 'renamed', oldPath: 'old.txt', binary: false }] }),
      facts,
      english,
    );
    assert.ok(odd.includes('- R `old.txt` → `` a`b.txt ``'), odd);
    assert.ok(odd.includes('- **Changes:** 1 file\n'), 'a file without counts shows no line counts');
  });

  it('lists at most maxFileRows files, then how many more', () => {
    const changedFiles = Array.from({ length: maxFileRows + 3 }, (_, i) => ({
      path: `f${String(i).padStart(3, '0')}.txt`,
      kind: 'modified' as const,
      binary: false,
      added: 1,
      removed: 1,
    }));
    const text = accountMarkdown(finished({ changedFiles }), facts, english);
    assert.equal(text.split('\n').filter((l) => /^- M `f\d+\.txt`/.test(l)).length, maxFileRows);
    assert.ok(text.includes('- … and 3 more\n'));
    assert.ok(text.includes(`- **Changes:** ${maxFileRows + 3} files, +${maxFileRows + 3} −${maxFileRows + 3}`));
  });
});
