// Accept / Revert Selected Lines over in-memory files and a stand-in for `git show`: which file each
// reads and writes (renamed, added, deleted files), and that every refusal writes nothing. The same
// functions run with real git and a real demo agent in test/git/hunks.test.ts.
import * as assert from 'node:assert/strict';
import type { AgentRecord, ChangedFile } from '../../src/core/agent';
import { AgentError } from '../../src/core/errors';
import { acceptSelectedLines, agentDiff, type HunkDeps, revertSelectedLines } from '../../src/core/review';
import { agentRecord } from './agentRecords';

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array | undefined) => (bytes ? new TextDecoder().decode(bytes) : undefined);

describe('accept and revert selected lines: the files read and written', () => {
  let disk: Map<string, Uint8Array>;
  let shown: string[];
  let written: string[];
  let deps: HunkDeps;
  const record: AgentRecord = agentRecord('A', {
    status: 'succeeded',
    repoRoot: '/repo',
    cwd: '/wt/A',
    worktreePath: '/wt/A',
    baseSha: 'base1',
  });
  const inWorkspace: AgentRecord = { ...record, cwd: '/repo', worktreePath: undefined, isolation: 'terminal' };
  const file = (path: string, kind: ChangedFile['kind'], oldPath?: string): ChangedFile => ({
    path,
    kind,
    binary: false,
    ...(oldPath ? { oldPath } : {}),
  });
  const put = (path: string, text: string | Uint8Array) =>
    disk.set(path, typeof text === 'string' ? encode(text) : text);
  const committed = new Map<string, string>([
    ['old/name.txt', 'one\ntwo\nthree\n'],
    ['m.txt', 'a\nb\nc\n'],
    ['d.txt', 'x\ny\n'],
  ]);
  const nothingWritten = () => assert.deepEqual(written, []);

  beforeEach(() => {
    disk = new Map();
    shown = [];
    written = [];
    deps = {
      git: {
        showFile: (repoRoot, sha, path) => {
          shown.push(`${repoRoot} ${sha} ${path}`);
          const text = committed.get(path);
          return Promise.resolve(text === undefined ? undefined : encode(text));
        },
      },
      files: {
        read: (path) => Promise.resolve(disk.get(path)),
        write: (path, bytes) => {
          written.push(path);
          disk.set(path, bytes);
          return Promise.resolve();
        },
      },
    };
  });

  it('accepts lines of a renamed file into the workspace file it was made from', async () => {
    put('/wt/A/new/name.txt', 'one\nTWO\nthree\nfour\n');
    put('/repo/old/name.txt', 'one\ntwo\nthree\n');
    const renamed = file('new/name.txt', 'renamed', 'old/name.txt');
    const outcome = await acceptSelectedLines(deps, record, renamed, [{ start: 3, end: 3 }]);
    assert.deepEqual(outcome, { changes: 1, written: '/repo/old/name.txt' });
    assert.deepEqual(shown, ['/repo base1 old/name.txt'], 'the base is the old path at the base commit');
    assert.equal(decode(disk.get('/repo/old/name.txt')), 'one\ntwo\nthree\nfour\n');
    assert.equal(decode(disk.get('/wt/A/new/name.txt')), 'one\nTWO\nthree\nfour\n', 'the agent’s file as it was');
  });

  it('accepts lines of a new file into a workspace that has none: git is not asked for a base', async () => {
    for (const kind of ['added', 'untracked'] as const) {
      disk = new Map();
      shown.length = 0;
      put('/wt/A/n.txt', 'p\nq\nr\n');
      const outcome = await acceptSelectedLines(deps, record, file('n.txt', kind), [
        { start: 0, end: 0 },
        { start: 2, end: 2 },
      ]);
      assert.deepEqual(outcome, { changes: 2, written: '/repo/n.txt' });
      assert.equal(decode(disk.get('/repo/n.txt')), 'p\nr\n');
      assert.deepEqual(shown, []);
    }
  });

  it('reverts a deleted file’s lines in the agent’s worktree: its base lines come back there', async () => {
    put('/repo/d.txt', 'x\ny\n');
    const outcome = await revertSelectedLines(deps, record, file('d.txt', 'deleted'), [
      { start: 0, end: 0, side: 'base' },
    ]);
    assert.deepEqual(outcome, { changes: 1, written: '/wt/A/d.txt' });
    assert.equal(decode(disk.get('/wt/A/d.txt')), 'x\ny\n');
    assert.deepEqual(written, ['/wt/A/d.txt'], 'the workspace is not written');
    const diff = await agentDiff(deps, record, file('d.txt', 'deleted'));
    assert.deepEqual(diff.agent, [], 'a deleted file is not read from the worktree');
    assert.deepEqual(diff.base, ['x\n', 'y\n']);
    assert.deepEqual(diff.changes, [{ baseStart: 0, baseEnd: 2, agentStart: 0, agentEnd: 0 }]);
  });

  it('reverts a modified file in the worktree, leaving the workspace alone', async () => {
    put('/wt/A/m.txt', 'a\nB\nc\nd\n');
    put('/repo/m.txt', 'a\nb\nc\n');
    const outcome = await revertSelectedLines(deps, record, file('m.txt', 'modified'), [
      { start: 1, end: 1, whole: true },
    ]);
    assert.deepEqual(outcome, { changes: 1, written: '/wt/A/m.txt' });
    assert.equal(decode(disk.get('/wt/A/m.txt')), 'a\nb\nc\nd\n');
    assert.equal(decode(disk.get('/repo/m.txt')), 'a\nb\nc\n');
  });

  it('refuses an agent working in the workspace itself, reading and writing nothing', async () => {
    put('/repo/m.txt', 'a\nB\nc\n');
    await assert.rejects(
      acceptSelectedLines(deps, inWorkspace, file('m.txt', 'modified'), [{ start: 1, end: 1 }]),
      (e: unknown) => AgentError.isCode(e, 'alreadyInWorkspace') && e.data.title === 'A',
    );
    await assert.rejects(
      revertSelectedLines(deps, inWorkspace, file('m.txt', 'modified'), [{ start: 1, end: 1 }]),
      (e: unknown) => AgentError.isCode(e, 'worksInWorkspace') && e.data.title === 'A',
    );
    assert.deepEqual(shown, []);
    nothingWritten();
  });

  it('refuses a selection with no change, and a side that is not text, writing nothing', async () => {
    put('/wt/A/m.txt', 'a\nb\nc\nD\n');
    put('/repo/m.txt', 'a\nb\nc\n');
    await assert.rejects(
      acceptSelectedLines(deps, record, file('m.txt', 'modified'), [{ start: 0, end: 1 }]),
      (e: unknown) => AgentError.isCode(e, 'noChangeSelected') && e.data.path === 'm.txt',
    );
    await assert.rejects(
      revertSelectedLines(deps, record, file('m.txt', 'modified'), [{ start: 0, end: 1 }]),
      (e: unknown) => AgentError.isCode(e, 'noChangeSelected') && e.data.path === 'm.txt',
    );
    put('/wt/A/m.txt', new Uint8Array([0x61, 0x0a, 0xff, 0x0a]));
    await assert.rejects(
      revertSelectedLines(deps, record, file('m.txt', 'modified'), [{ start: 1, end: 1 }]),
      (e: unknown) => AgentError.isCode(e, 'binaryHunks') && e.data.path === 'm.txt',
    );
    put('/wt/A/m.txt', 'a\nb\nc\nD\n');
    put('/repo/m.txt', new Uint8Array([0x61, 0x00]));
    await assert.rejects(
      acceptSelectedLines(deps, record, file('m.txt', 'modified'), [{ start: 3, end: 3 }]),
      (e: unknown) => AgentError.isCode(e, 'binaryHunks') && e.data.path === 'm.txt',
      'a workspace file that is not text is refused too',
    );
    nothingWritten();
  });
});
