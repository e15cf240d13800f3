// Records an earlier version kept in workspaceState move into the repository's registry on the
// first load: a real repository and real files; the Memento is VS Code's key-value interface,
// held in a Map here since no window is involved.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { MigratingStore } from '../../src/host/migratingStore';
import { registryDirSync } from '../../src/node/registry/location';
import { openRegistryStore } from './registryFixture';
import { git } from './managerFixture';

interface Rec {
  readonly id: string;
  readonly repoRoot: string;
  readonly status: string;
}

class MapMemento implements Pick<vscode.Memento, 'get' | 'update'> {
  readonly values = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    if (value === undefined) {
      this.values.delete(key);
    } else {
      this.values.set(key, value);
    }
  }
}

const quiet = { info() {}, warn() {}, error() {} };

describe('records of the previous version move into the registry', function () {
  this.timeout(30_000);
  let tmp = '';
  let repo = '';

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-migrate-')));
    repo = path.join(tmp, 'repo');
    fs.mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const registry = () => openRegistryStore<Rec>(registryDirSync(repo) as string);
  const until = async (probe: () => boolean) => {
    for (let i = 0; i < 200 && !probe(); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  it('moves them on the first load, keeps the registry copy of an id it already has, then clears the old key', async () => {
    const first = registry();
    first.load();
    await first.save([{ id: 'both', repoRoot: repo, status: 'merged' }]);
    const memento = new MapMemento();
    memento.values.set('agents.v1', [
      { id: 'old1', repoRoot: repo, status: 'succeeded' },
      { id: 'both', repoRoot: repo, status: 'running' },
    ]);
    const store = new MigratingStore(registry(), memento as unknown as vscode.Memento, 'agents.v1', quiet);
    const loaded = [...store.load()].sort((a, b) => a.id.localeCompare(b.id));
    assert.deepEqual(loaded, [
      { id: 'both', repoRoot: repo, status: 'merged' },
      { id: 'old1', repoRoot: repo, status: 'succeeded' },
    ]);
    await until(() => !memento.values.has('agents.v1'));
    assert.equal(memento.values.has('agents.v1'), false, 'the old key is cleared once every record has its file');
    const next = registry().load();
    assert.deepEqual(next.map((r) => r.id).sort(), ['both', 'old1'], 'a later window finds them in the registry');
  });

  it('a record whose repository has no registry stays in the old key: nothing is lost', async () => {
    const elsewhere = path.join(tmp, 'not-a-repo');
    fs.mkdirSync(elsewhere);
    const memento = new MapMemento();
    memento.values.set('agents.v1', [
      { id: 'ok', repoRoot: repo, status: 'succeeded' },
      { id: 'stray', repoRoot: elsewhere, status: 'failed' },
    ]);
    const store = new MigratingStore(registry(), memento as unknown as vscode.Memento, 'agents.v1', quiet);
    assert.equal(store.load().length, 2);
    await until(() => (memento.get<Rec[]>('agents.v1') ?? []).length === 1);
    assert.deepEqual(memento.get('agents.v1'), [{ id: 'stray', repoRoot: elsewhere, status: 'failed' }]);
  });
});
