// The comparison of Best of N candidates (ui/bestOf/compareMarkdown.ts), read in English through the
// same templates vscode.l10n.t translates: one table row per candidate, then each one's final message
// and files; a cell's pipes and line breaks never break the table.
import * as assert from 'node:assert/strict';
import type { AgentRecord } from '../../src/core/agent';
import { compareMarkdown, maxCandidateFiles } from '../../src/ui/bestOf/compareMarkdown';
import { type ErrorText, fill } from '../../src/ui/errorText';
import { agentRecord } from './agentRecords';

const english = (text: ErrorText): string => fill(text.template, text.args);

const candidate = (index: number, extra: Partial<AgentRecord> = {}): AgentRecord =>
  agentRecord(`c${index}`, {
    title: `Fix the parser (${index}/2)`,
    status: 'succeeded',
    createdAt: 1_000,
    startedAt: 1_000,
    endedAt: 1_000 + index * 65_000,
    bestOf: { group: 'g', index, of: 2 },
    ...extra,
  });

describe('compareMarkdown: the Best of N comparison', () => {
  const one = candidate(1, {
    profile: 'claude',
    changedFiles: [
      { path: 'src/parser.ts', kind: 'modified', binary: false, added: 10, removed: 4 },
      { path: 'src/new.ts', kind: 'untracked', binary: false, added: 2, removed: 0 },
    ],
    activity: {
      turns: 7,
      inputTokens: 1200,
      outputTokens: 345,
      costUsd: 0.0123,
      result: 'Fixed it.\n# Heading | pipe',
    },
  });
  const two = candidate(2, { profile: 'demo', status: 'failed', changedFiles: [] });
  const facts = (r: AgentRecord) => ({
    status: r.status === 'failed' ? 'failed (exit 1)' : 'succeeded',
    check: r.id === 'c1' ? 'npm test: passed' : undefined,
  });
  const text = compareMarkdown([one, two], facts, 0, english);
  const lines = text.split('\n');

  it('titles the document by the task, without the candidate number', () => {
    assert.equal(lines[0], '# Best of 2: Fix the parser');
  });

  it('has one table row per candidate with status, files, +/−, check, duration and usage', () => {
    const rows = lines.filter((l) => l.startsWith('| '));
    assert.equal(rows.length, 4, 'a header, its rule, two candidates');
    assert.equal(rows[0], '| # | Profile | Status | Files | +/− | Check | Duration | Turns | Tokens | Cost |');
    assert.equal(
      rows[2],
      `| 1/2 | claude | succeeded | 2 | +12 −4 | npm test: passed | 1m 05s | 7 | ${(1200).toLocaleString()} / 345 | $0.0123 |`,
    );
    assert.equal(rows[3], '| 2/2 | demo | failed (exit 1) | 0 |  |  | 2m 10s |  |  |  |');
  });

  it('quotes each final message and lists each candidate’s files', () => {
    const first = text.indexOf('## 1/2 · claude · Fix the parser (1/2)');
    const second = text.indexOf('## 2/2 · demo · Fix the parser (2/2)');
    assert.ok(first > 0 && second > first);
    const section = text.slice(first, second);
    assert.match(section, /> Fixed it\.\n> # Heading \| pipe/);
    assert.match(section, /- modified `src\/parser\.ts` \+10 −4/);
    assert.match(section, /- untracked `src\/new\.ts` \+2 −0/);
    const last = text.slice(second);
    assert.match(last, /_No final message\._/);
    assert.match(last, /_No changed files\._/);
  });

  it('escapes pipes and line breaks in table cells, and caps long file lists', () => {
    const many = Array.from({ length: maxCandidateFiles + 3 }, (_, i) => ({
      path: `f${i}.txt`,
      kind: 'added' as const,
      binary: false,
      added: 1,
      removed: 0,
    }));
    const odd = candidate(1, { profile: 'a|b', changedFiles: many });
    const out = compareMarkdown([odd], () => ({ status: 'line one\nline two' }), 0, english);
    const row = out.split('\n').find((l) => l.startsWith('| 1/2'));
    assert.ok(row?.startsWith('| 1/2 | a\\|b | line one line two | 53 | +53 −0 |'), row);
    assert.match(out, /- … and 3 more/);
    assert.equal(out.split('\n').filter((l) => /^- added `f\d+\.txt`/.test(l)).length, maxCandidateFiles);
  });
});
