// Accept and Revert Selected Lines with real parts: a real repository, a demo agent's real worktree,
// the real git showing the base, the files read and written by the functions the commands call.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentError } from '../../src/core/errors';
import { acceptSelectedLines, type LineSelection, revertSelectedLines } from '../../src/core/review';
import { NodeFileBytes } from '../../src/node/fileBytes';
import { assertUntouched, recordWorkspace } from '../harness/untouched';
import { ManagerFixture } from './managerFixture';

const base = {
  'src/crlf.txt': 'alpha\r\nbeta\r\ngamma\r\ndelta\r\n',
  'noeol.txt': 'one\ntwo\nthree',
  'unicode.md': '# Título\n\tsangría\nñandú 🐦\nfin\n',
  'plain.txt': 'l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n',
};
// The demo agent's language has no escape for a carriage return, and it writes text only: the CRLF
// and the binary file are written into its worktree after it ran, as any other program would.
const crlfAgent = 'alpha\r\nbeta\r\nNEW 1\r\n\tNEW 2 ñ\r\nNEW 3\r\ngamma\r\ndelta\r\n';
const unicodeAgent = '# Título\n\tsangría\n\t\tnueva línea ✓\n\totra 漢字\nñandú 🐦\nfin\n';
const plainAgent = 'l1\nL2\nl3\nl4\nl5\nl6\nl7\nadded 1\nadded 2\nl8\nl9\nl10\n';
const binaryBase = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x0a]);
const prompt = [
  `create unicode.md: ${unicodeAgent.replace(/\n/g, '\\n').replace(/\t/g, '\\t')}`,
  'create noeol.txt: one\\ntwo\\nthree\\nfour',
  `create plain.txt: ${plainAgent.replace(/\n/g, '\\n')}`,
].join('\n');

const lines = (start: number, end = start): LineSelection => ({ start, end });
const cursor = (line: number): LineSelection => ({ start: line, end: line, whole: true });

describe('accepting and reverting selected lines of an agent diff, with real git', function () {
  this.timeout(60000);
  let fx: ManagerFixture;
  let manager: AgentManager;
  let record: AgentRecord;
  const deps = () => ({ git: fx.git, files: new NodeFileBytes() });
  const inRepo = (rel: string) => fs.readFileSync(path.join(fx.repo, rel));
  const inAgent = (rel: string) => fs.readFileSync(path.join(record.cwd, rel));
  const fileOf = (rel: string) => {
    const file = record.changedFiles.find((f) => f.path === rel);
    assert.ok(file, `${rel} is among the agent's changes: ${JSON.stringify(record.changedFiles)}`);
    return file;
  };
  const accept = (rel: string, selections: LineSelection[]) =>
    acceptSelectedLines(deps(), record, fileOf(rel), selections);
  const revert = (rel: string, selections: LineSelection[]) =>
    revertSelectedLines(deps(), record, fileOf(rel), selections);

  before(async () => {
    fx = new ManagerFixture({ ...base, 'logo.bin': binaryBase as unknown as string });
    manager = fx.manager();
    const started = await manager.dispatch({ prompt, profile: 'demo', folder: fx.repo, title: 'Hunks' });
    const done = await fx.finished(manager, started.id);
    assert.equal(done.status, 'succeeded', done.error);
    fs.writeFileSync(path.join(done.cwd, 'src/crlf.txt'), crlfAgent);
    fs.writeFileSync(path.join(done.cwd, 'logo.bin'), Buffer.concat([binaryBase, Buffer.from([0, 2])]));
    await manager.refreshChanges(done.id);
    record = manager.get(done.id);
  });

  after(() => fx.dispose());

  it('accepts two selected lines of a CRLF hunk: the workspace file gains exactly them', async () => {
    const agentBefore = inAgent('src/crlf.txt');
    const outcome = await accept('src/crlf.txt', [lines(3, 4)]);
    assert.equal(outcome.written, path.join(fx.repo, 'src/crlf.txt'));
    assert.ok(inRepo('src/crlf.txt').equals(Buffer.from('alpha\r\nbeta\r\n\tNEW 2 ñ\r\nNEW 3\r\ngamma\r\ndelta\r\n')));
    assert.ok(inAgent('src/crlf.txt').equals(agentBefore), "the agent's file is left as it was");
  });

  it("no longer shows an accepted hunk in the agent's diff against the workspace (git diff)", () => {
    const diff = gitDiff(path.join(fx.repo, 'src/crlf.txt'), path.join(record.cwd, 'src/crlf.txt'));
    assert.deepEqual(changedLines(diff), ['+NEW 1\r'], diff);
  });

  it('accepts one line of a hunk with tabs and non-ASCII text, byte for byte', async () => {
    await accept('unicode.md', [lines(3)]);
    assert.ok(inRepo('unicode.md').equals(Buffer.from('# Título\n\tsangría\n\totra 漢字\nñandú 🐦\nfin\n', 'utf8')));
  });

  it('accepts a whole change at an end without a final newline, from a cursor', async () => {
    await accept('noeol.txt', [cursor(3)]);
    assert.ok(inRepo('noeol.txt').equals(Buffer.from('one\ntwo\nthree\nfour')));
  });

  it("reverts a hunk in the agent's worktree: its file loses exactly that hunk, the workspace is untouched", async () => {
    const workspace = recordWorkspace(fx.repo);
    await revert('plain.txt', [cursor(8)]);
    assert.ok(inAgent('plain.txt').equals(Buffer.from('l1\nL2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n')));
    assertUntouched(workspace, 'a revert writes only in the worktree');
    await manager.refreshChanges(record.id);
    assert.ok(
      manager.get(record.id).changedFiles.some((f) => f.path === 'plain.txt'),
      'the other hunk is still there',
    );
  });

  it('refuses a hunk whose lines the user edited in the workspace, naming file and lines; nothing changes', async () => {
    fs.writeFileSync(path.join(fx.repo, 'plain.txt'), 'l1\nmy own l2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n');
    const [workspace, worktree] = [recordWorkspace(fx.repo), recordWorkspace(record.cwd)];
    await assert.rejects(accept('plain.txt', [cursor(1)]), (e: unknown) => {
      assert.ok(AgentError.isCode(e, 'hunkNoLongerApplies'), String(e));
      assert.deepEqual(e.data, { path: 'plain.txt', lines: '2' });
      return true;
    });
    assertUntouched(workspace, 'the refused accept wrote in the workspace');
    assertUntouched(worktree, 'the refused accept wrote in the worktree');
  });

  it('refuses a binary file and a selection with no change in it; nothing changes', async () => {
    const [workspace, worktree] = [recordWorkspace(fx.repo), recordWorkspace(record.cwd)];
    await assert.rejects(accept('logo.bin', [cursor(0)]), (e: unknown) => AgentError.isCode(e, 'binaryHunks'));
    await assert.rejects(revert('logo.bin', [cursor(0)]), (e: unknown) => AgentError.isCode(e, 'binaryHunks'));
    await assert.rejects(accept('src/crlf.txt', [lines(0, 1)]), (e: unknown) =>
      AgentError.isCode(e, 'noChangeSelected'),
    );
    assertUntouched(workspace, 'a refusal wrote in the workspace');
    assertUntouched(worktree, 'a refusal wrote in the worktree');
  });
});

/** `git diff --no-index` of two files (exit 1 means they differ). */
function gitDiff(a: string, b: string): string {
  try {
    return execFileSync('git', ['diff', '--no-index', '--no-color', '-U0', a, b], { encoding: 'utf8' });
  } catch (e) {
    return (e as { stdout: string }).stdout;
  }
}

/** The + and - lines of a unified diff, without its headers. */
function changedLines(diff: string): string[] {
  return diff.split('\n').filter((l) => /^[+-]/.test(l) && !/^(\+\+\+|---) /.test(l));
}
