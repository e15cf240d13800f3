// A window's view of one repository's registry for the bench: the real RegistryStore, plus the
// list of records the window holds, kept as the AgentManager keeps it (records another window
// writes join it, those it removes leave it), so a save never removes another window's records.
import type { AgentRecord } from '../../src/core/agent';
import { RegistryStore } from '../../src/node/registry/registryStore';

const quiet = { info() {}, warn() {}, error() {} };

export function agentStore(registry: string): RegistryStore<AgentRecord> {
  return new RegistryStore<AgentRecord>({
    kind: 'agents',
    registries: () => [registry],
    registryOf: () => registry,
    logger: quiet,
  });
}

export class BenchWindow {
  readonly store: RegistryStore<AgentRecord>;
  private readonly records = new Map<string, AgentRecord>();

  constructor(registry: string, onChange?: (records: readonly AgentRecord[], at: number) => void) {
    this.store = agentStore(registry);
    this.store.onDidChangeElsewhere((e) => {
      const at = wallNow();
      e.changed.forEach(({ record }) => this.records.set(record.id, record));
      e.removed.forEach((id) => this.records.delete(id));
      onChange?.(
        e.changed.map((c) => c.record),
        at,
      );
    });
    this.store.load().forEach((r) => this.records.set(r.id, r));
  }

  get size(): number {
    return this.records.size;
  }

  /** Writes one record as the window would: the whole list, of which only what changed is written. */
  put(record: AgentRecord): Promise<void> {
    this.records.set(record.id, record);
    return this.store.save([...this.records.values()]);
  }

  dispose(): void {
    this.store.dispose();
  }
}

/** Wall-clock milliseconds with sub-millisecond resolution, comparable between processes of one machine. */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

const endedStatuses = ['succeeded', 'failed', 'stopped', 'merged', 'discarded', 'reviewed'] as const;

/**
 * A valid record of an agent that ended (no process to adopt at activation), as the extension
 * writes one: a worktree and branch, a few changed files, some CLI activity.
 */
export function sampleAgentRecord(id: string, repoRoot: string, n: number): AgentRecord {
  const status = endedStatuses[n % endedStatuses.length];
  const removed = status === 'merged' || status === 'discarded';
  const worktree = `${repoRoot}.worktrees/${id}`;
  return {
    id,
    title: `Task ${n}: update module ${n % 17}`,
    prompt: `Update module ${n % 17} so that it handles case ${n}; add a test for it.`,
    profile: 'demo',
    mode: 'headless',
    isolation: 'worktree',
    status,
    repoRoot,
    cwd: worktree,
    branch: `agents/${id}`,
    worktreePath: worktree,
    baseSha: '0123456789abcdef0123456789abcdef01234567',
    createdAt: 1_700_000_000_000 + n * 60_000,
    startedAt: 1_700_000_001_000 + n * 60_000,
    endedAt: 1_700_000_050_000 + n * 60_000,
    exitCode: status === 'failed' ? 1 : 0,
    logPath: `${repoRoot}/.git/parallel-agents/logs/${id}.log`,
    changedFiles: [
      { path: `src/module${n % 17}.ts`, kind: 'modified', binary: false },
      { path: `test/module${n % 17}.test.ts`, kind: 'added', binary: false },
      { path: `docs/case${n}.md`, kind: 'untracked', binary: false },
    ],
    worktreePresent: !removed,
    ...(status === 'merged' ? { mergedInto: 'main' } : {}),
    ...(status === 'discarded'
      ? { statusBeforeDiscard: 'succeeded' as const, savedRef: `refs/parallel-agents/saved/${id}` }
      : {}),
    activity: {
      step: `Edit src/module${n % 17}.ts`,
      turns: 4 + (n % 5),
      inputTokens: 12_000 + n,
      outputTokens: 900 + n,
    },
  };
}

/** Writes `count` valid records into the registry with the real store (one window's save). */
export async function writeSampleRecords(registry: string, repoRoot: string, count: number): Promise<void> {
  const store = agentStore(registry);
  try {
    store.load();
    const records = Array.from({ length: count }, (_, n) =>
      sampleAgentRecord(`r${String(n).padStart(4, '0')}`, repoRoot, n),
    );
    await store.save(records);
  } finally {
    store.dispose();
  }
}
