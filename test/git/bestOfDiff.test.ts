// Diff Two Candidates of a Best of 3, with real git and real demo-agent processes: which candidates
// one is offered against (the two others while they have their folders, then the one left), and
// each side of the diff is that candidate's version of the file as it is on disk.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentError } from '../../src/core/errors';
import type { AgentLanding } from '../../src/core/landing/agentLanding';
import {
  candidateHasFolder,
  candidatePairs,
  type CandidateSide,
  diffPartners,
} from '../../src/core/landing/bestOfDiff';
import { eachWithLanding, git, type ManagerFixture } from './managerFixture';

/** What the diff editor shows for a side: the file in the folder, or the file at the base commit. */
function shown(side: CandidateSide): string {
  if (side.kind === 'folder') {
    return fs.readFileSync(side.file, 'utf8');
  }
  const { repo, sha, path: at } = side.query;
  return at === undefined ? '' : execFileSync('git', ['show', `${sha}:${at}`], { cwd: repo, encoding: 'utf8' });
}

/** The candidate's file as it is on disk; empty when it is not there. */
function onDisk(record: AgentRecord, file: string): string {
  const full = path.join(record.cwd, file);
  return fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : '';
}

describe('Diff Two Candidates among three Best of N candidates (real git, real demo agents)', function () {
  this.timeout(90000);
  let fx: ManagerFixture;
  let manager: AgentManager;
  let landing: AgentLanding;

  eachWithLanding((setUp) => ({ fx, manager, landing } = setUp));

  const ids = (records: readonly AgentRecord[]) => records.map((r) => r.id);

  /**
   * Three candidates of one task, then made to differ: 1 as the agent left it (choice.txt added,
   * app.js changed), 2 also deletes README.md, 3 writes its own choice.txt and leaves app.js alone.
   */
  async function threeThatDiffer(): Promise<AgentRecord[]> {
    const records = await manager.dispatchBestOf({
      prompt: 'create choice.txt: candidate\nreplace app.js: hi => picked',
      profiles: ['demo', 'demo', 'demo'],
      folder: fx.repo,
      title: 'Differ',
    });
    for (const r of records) {
      const done = await fx.finished(manager, r.id);
      assert.equal(done.status, 'succeeded', done.error);
    }
    const [one, two, three] = records.map((r) => manager.get(r.id));
    fs.rmSync(path.join(two.cwd, 'README.md'));
    fs.writeFileSync(path.join(three.cwd, 'choice.txt'), 'candidate three\n');
    git(three.cwd, 'checkout', '--', 'app.js');
    for (const r of [one, two, three]) {
      await manager.refreshChanges(r.id);
    }
    return [one, two, three].map((r) => manager.get(r.id));
  }

  it('offers each candidate the two others; each side shows that candidate’s file, or the base’s', async () => {
    const [one, two, three] = await threeThatDiffer();
    assert.deepEqual(ids(diffPartners(manager, one.id)), ids([two, three]));
    assert.deepEqual(ids(diffPartners(manager, two.id)), ids([one, three]));
    assert.deepEqual(ids(diffPartners(manager, three.id)), ids([one, two]));

    for (const [a, b, files] of [
      [one, two, ['README.md', 'app.js', 'choice.txt']],
      [one, three, ['app.js', 'choice.txt']],
      [two, three, ['README.md', 'app.js', 'choice.txt']],
    ] as const) {
      const pairs = candidatePairs(a, b);
      assert.deepEqual(
        pairs.map((p) => p.path),
        files,
        `${a.title} ↔ ${b.title}: every file either changed, once`,
      );
      for (const pair of pairs) {
        assert.equal(shown(pair.a), onDisk(a, pair.path), `${a.title}'s side of ${pair.path}`);
        assert.equal(shown(pair.b), onDisk(b, pair.path), `${b.title}'s side of ${pair.path}`);
      }
    }
    const oneThree = candidatePairs(one, three);
    assert.deepEqual(
      oneThree.map((p) => [p.path, p.a.kind, p.b.kind]),
      [
        ['app.js', 'folder', 'base'],
        ['choice.txt', 'folder', 'folder'],
      ],
      'a file the candidate left alone comes from the base commit',
    );
    assert.notEqual(shown(oneThree[0].a), shown(oneThree[0].b), 'app.js differs between 1 and 3');
    const readme = candidatePairs(one, two).find((p) => p.path === 'README.md')!;
    assert.deepEqual([shown(readme.a), shown(readme.b)], ['# sample\n', ''], 'deleted by 2: its side is empty');
  });

  it('one of three discarded: the one left is the only partner; the discarded one is offered nowhere', async () => {
    const [one, two, three] = await threeThatDiffer();
    await landing.discard(three.id);
    assert.equal(candidateHasFolder(manager.get(three.id)), false, 'its folder went with Discard');
    assert.deepEqual(ids(diffPartners(manager, one.id)), [two.id]);
    assert.deepEqual(ids(diffPartners(manager, two.id)), [one.id]);

    // Pick 2: merged, 1 discarded; 2 keeps its folder, with no candidate left to diff it against.
    assert.ok(await landing.commit(two.id, 'Candidate 2'));
    assert.equal((await landing.merge(two.id, 'merge', 'Land 2')).kind, 'merged');
    await landing.discard(one.id);
    assert.deepEqual(diffPartners(manager, two.id), []);

    const plain = await fx.ran(manager, 'create plain.txt: p', 'Plain');
    assert.throws(
      () => diffPartners(manager, plain.id),
      (e: unknown) => AgentError.isCode(e, 'notBestOfCandidate'),
    );
  });
});
