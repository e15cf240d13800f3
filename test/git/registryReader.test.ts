// Restricted Mode reads the registry of a real repository from its files: from the main worktree
// and from a linked one (whose `.git` is a file naming its git dir and `commondir`), with no git on
// PATH, writing nothing. Records a trusted window wrote are listed; a corrupt file and one from a
// newer version are reported and left exactly as they were.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import { registrySchemaVersion } from '../../src/node/registry/recordFiles';
import { readRegistries, registriesOf } from '../../src/node/registry/registryReader';
import { openRegistryStore } from './registryFixture';
import { createTempRepo } from '../harness/tempRepo';
import { agentRecord } from '../unit/agentRecords';
import { git } from './managerFixture';

/** Every file under `dir` with its bytes and mtime: what "nothing changed" is checked against. */
function tree(dir: string): Record<string, string> {
  if (!fs.existsSync(dir)) {
    return {};
  }
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    const stat = fs.statSync(file);
    out[path.relative(dir, file)] = entry.isFile() ? `${stat.mtimeMs}:${fs.readFileSync(file, 'hex')}` : 'dir';
  }
  return out;
}

/** Runs `body` with no git reachable: PATH names an empty folder. */
function withoutGit<T>(body: () => T): T {
  const saved = process.env.PATH;
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-nopath-'));
  process.env.PATH = empty;
  try {
    return body();
  } finally {
    process.env.PATH = saved;
    fs.rmSync(empty, { recursive: true, force: true });
  }
}

describe('registry reader (Restricted Mode): records read from files, no git, no writes', function () {
  this.timeout(30_000);
  let tmp = '';
  let repo = '';
  let linked = '';
  let registry = '';

  beforeEach(async () => {
    repo = (await createTempRepo({ 'README.md': '# r\n' })).dir;
    tmp = path.dirname(repo);
    linked = path.join(tmp, 'sample-project.worktrees', 'a1');
    git(repo, 'worktree', 'add', '-q', '-b', 'agents/a1', linked);
    registry = path.join(repo, '.git', 'parallel-agents');
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** Records written as a trusted window writes them. */
  async function writeAgents(...records: AgentRecord[]): Promise<void> {
    const store = openRegistryStore(registry, { registryOf: () => registry });
    try {
      store.load();
      await store.save(records);
    } finally {
      store.dispose();
    }
  }

  it('finds the one registry of the main and the linked worktree from their files', () => {
    assert.ok(fs.statSync(path.join(linked, '.git')).isFile(), "a linked worktree's .git is a file");
    const found = withoutGit(() => registriesOf([repo, linked, path.join(repo, 'sub', 'dir')]));
    assert.deepEqual(found, [registry]);
    assert.deepEqual(
      withoutGit(() => registriesOf([tmp])),
      [],
      'a folder in no repository has no registry',
    );
  });

  it('lists the recorded agents and plan runs, newest first, from a linked worktree, with no git on PATH', async () => {
    await writeAgents(
      agentRecord('old1', { repoRoot: repo, title: 'Older', status: 'succeeded', createdAt: 1000 }),
      agentRecord('new1', { repoRoot: repo, title: 'Newer', status: 'stopped', createdAt: 2000 }),
    );
    const plan = {
      id: 'run1',
      repoRoot: repo,
      plan: { title: 'A plan', tasks: [{ id: 't1', title: 'Task one', prompt: 'p' }] },
      scheduler: { started: true, stopped: false, tasks: { t1: { state: 'done', timings: {} } } },
    };
    fs.mkdirSync(path.join(registry, 'plans'));
    fs.writeFileSync(
      path.join(registry, 'plans', 'run1.json'),
      JSON.stringify({ schemaVersion: 1, revision: 1, writtenAt: 0, writer: 'x', record: plan }),
    );
    const before = tree(registry);
    const contents = withoutGit(() => readRegistries(registriesOf([linked])));
    assert.deepEqual(
      contents.agents.map((a) => [a.id, a.title, a.status]),
      [
        ['new1', 'Newer', 'stopped'],
        ['old1', 'Older', 'succeeded'],
      ],
    );
    assert.deepEqual(
      contents.plans.map((p) => [p.id, p.plan.title]),
      [['run1', 'A plan']],
    );
    assert.deepEqual(contents.problems, []);
    assert.deepEqual(tree(registry), before, 'no file of the registry written, touched or added');
  });

  it('reports a corrupt file and one from a newer version, leaves both as they are, and lists the others', async () => {
    await writeAgents(agentRecord('good', { repoRoot: repo, title: 'Good', status: 'failed' }));
    const agents = path.join(registry, 'agents');
    fs.writeFileSync(path.join(agents, 'broken.json'), '{"schemaVersion": 1, "revision"');
    fs.writeFileSync(
      path.join(agents, 'future.json'),
      JSON.stringify({ schemaVersion: registrySchemaVersion + 1, revision: 1, record: { id: 'future' } }),
    );
    const before = tree(registry);
    const contents = withoutGit(() => readRegistries(registriesOf([repo])));
    assert.deepEqual(
      contents.agents.map((a) => a.id),
      ['good'],
    );
    assert.deepEqual(contents.problems.map((p) => [path.basename(p.file), p.reason]).sort(), [
      ['broken.json', 'corrupt'],
      ['future.json', 'newerSchema'],
    ]);
    assert.match(contents.problems.find((p) => p.reason === 'newerSchema')?.detail ?? '', /schemaVersion 2/);
    assert.deepEqual(tree(registry), before, 'the unreadable files are left exactly as they were');
  });

  it('creates nothing in a repository that has no registry yet', () => {
    const gitDir = path.join(repo, '.git');
    const before = tree(gitDir);
    const contents = withoutGit(() => readRegistries(registriesOf([repo, linked])));
    assert.deepEqual([contents.agents, contents.plans, contents.problems], [[], [], []]);
    assert.equal(fs.existsSync(registry), false, 'no registry folder made');
    assert.deepEqual(tree(gitDir), before);
  });
});
