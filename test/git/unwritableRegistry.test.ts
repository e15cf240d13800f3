// A registry folder that refuses writes: a real repository whose `.git/parallel-agents` is bind-
// mounted read-only onto itself (root's chmod would not stop a write; a read-only mount does:
// EROFS). A window's store then warns once, naming the folder and the file, keeps listing every
// agent, changes no file and resolves its saves; the agents' logs go elsewhere.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { RecordWriteFailure } from '../../src/core/ports';
import { readRegistries } from '../../src/node/registry/registryReader';
import type { RegistryStore } from '../../src/node/registry/registryStore';
import { openRegistryStore } from './registryFixture';
import { WriteHealth, writableSync } from '../../src/node/registry/writeHealth';
import { createTempRepo } from '../harness/tempRepo';
import { agentRecord } from '../unit/agentRecords';

/** Bind-mounts `dir` read-only onto itself; the reason when this machine does not allow it. */
function mountReadOnly(dir: string): string | undefined {
  try {
    execFileSync('mount', ['--bind', dir, dir], { stdio: 'pipe' });
  } catch (e) {
    return `mount --bind is not allowed here (${(e as Error).message.split('\n')[0]})`;
  }
  try {
    execFileSync('mount', ['-o', 'remount,bind,ro', dir], { stdio: 'pipe' });
    return undefined;
  } catch (e) {
    execFileSync('umount', [dir]);
    return `remount read-only is not allowed here (${(e as Error).message.split('\n')[0]})`;
  }
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file)] = entry.isFile()
      ? `${fs.statSync(file).mtimeMs}:${fs.readFileSync(file, 'utf8')}`
      : 'dir';
  }
  return out;
}

describe('a registry folder that refuses writes (read-only mount)', function () {
  this.timeout(30_000);
  let tmp = '';
  let repo = '';
  let registry = '';
  let mounted = false;
  const warnings: string[] = [];
  const logger = { info() {}, warn: (m: string) => warnings.push(m), error() {} };
  const stores: RegistryStore<AgentRecord>[] = [];

  const store = (health?: WriteHealth) => {
    const made = openRegistryStore(registry, { registryOf: () => registry, logger, health });
    stores.push(made);
    return made;
  };

  beforeEach(async function () {
    repo = (await createTempRepo({ 'README.md': '# r\n' })).dir;
    tmp = path.dirname(repo);
    registry = path.join(repo, '.git', 'parallel-agents');
    // Two agents recorded while the folder was writable (a trusted window, earlier).
    const before = store();
    before.load();
    await before.save([
      agentRecord('a1', { repoRoot: repo, title: 'One', status: 'running', createdAt: 1 }),
      agentRecord('a2', { repoRoot: repo, title: 'Two', status: 'succeeded', createdAt: 2 }),
    ]);
    before.dispose();
    if (process.getuid?.() !== 0) {
      this.skip(); // only root may mount; as another user chmod would do, but this suite covers the mount
    }
    const why = mountReadOnly(registry);
    if (why) {
      console.log(`      skipped: ${why}`);
      this.skip();
    }
    mounted = true;
  });

  afterEach(() => {
    stores.splice(0).forEach((s) => s.dispose());
    if (mounted) {
      execFileSync('umount', [registry]);
      mounted = false;
    }
    warnings.length = 0;
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('warns once naming the folder and file, lists every agent, and changes no file', async () => {
    const health = new WriteHealth();
    const failures: RecordWriteFailure[] = [];
    health.onDidFailToWrite((f) => failures.push(f));
    const window = store(health);
    const loaded = window.load();
    assert.deepEqual(loaded.map((r) => r.id).sort(), ['a1', 'a2']);
    const before = snapshot(registry);
    const changed = loaded.map((r) => (r.id === 'a1' ? { ...r, status: 'stopped' as const } : r));
    const added = agentRecord('a3', { repoRoot: repo, title: 'Three', createdAt: 3 });
    // Saves resolve: a refused write is a warning, not an error of every change of an agent.
    await window.save(changed);
    await window.save([...changed, added]);
    await window.save([{ ...changed[0], title: 'One again' }, changed[1], added]);
    assert.equal(failures.length, 1, 'one warning for the folder, however many writes it refused');
    assert.equal(failures[0].folder, registry);
    assert.equal(failures[0].file, path.join(registry, 'agents', 'a1.json'));
    assert.equal(failures[0].error.code, 'registryNotWritable');
    assert.deepEqual(failures[0].error.data, { folder: registry, file: failures[0].file, error: 'EROFS' });
    assert.ok(health.refused(registry));
    assert.deepEqual(snapshot(registry), before, 'no record file written, replaced, added or removed');
    assert.ok(
      warnings.some((w) => w.includes('a3.json') && /refuses writes/.test(w)),
      'each skipped file is in the log',
    );
    // What every window lists is still there, as it was.
    assert.deepEqual(
      readRegistries([registry]).agents.map((a) => [a.id, a.status]),
      [
        ['a2', 'succeeded'],
        ['a1', 'running'],
      ],
    );
    assert.equal(writableSync(registry), false, 'the folder is known unwritable without writing (logs go elsewhere)');
    assert.equal(writableSync(path.join(registry, 'logs')), false, 'nor a folder to be made in it');
    assert.equal(writableSync(repo), true);
  });

  it('without a health watcher (or for other errors) the failure is the save error, as before', async () => {
    const window = store();
    const loaded = window.load();
    await assert.rejects(
      window.save(loaded.map((r) => ({ ...r, title: `${r.title}!` }))),
      (e: NodeJS.ErrnoException) => e.code === 'EROFS',
    );
  });
});
