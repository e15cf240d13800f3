// The `scale` section's fixture: a small generated repository (bench/repo.ts) and `count` real
// worktrees of it, each with the kinds of change an agent leaves: a modified and an untracked file
// in every one; by turns a deleted file, a staged rename, an untracked binary file, a staged new
// file, a commit of its own.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import { sampleAgentRecord } from '../registry/window';
import { type BenchRepo, createBenchRepo, git } from '../repo';

export interface ScaleFixture {
  readonly repo: BenchRepo;
  /** One ended agent per worktree, as the registry holds it (no change set yet). */
  readonly records: readonly AgentRecord[];
}

async function changeWorktree(dir: string, n: number): Promise<void> {
  const file = (f: number, i: number) => `pkg${String(f).padStart(3, '0')}/file${String(i).padStart(3, '0')}.txt`;
  await fs.appendFile(path.join(dir, file(0, n % 20)), `agent ${n} was here\n`);
  await fs.mkdir(path.join(dir, 'notes'), { recursive: true });
  await fs.writeFile(path.join(dir, 'notes', `agent-${n}.md`), `# Notes of agent ${n}\n\nline\n`);
  switch (n % 5) {
    case 1:
      await fs.rm(path.join(dir, file(1, 1)));
      break;
    case 2:
      await git(dir, ['mv', file(2, 2), 'pkg002/renamed.txt']);
      break;
    case 3:
      await fs.writeFile(path.join(dir, `image-${n}.bin`), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
      break;
    case 4:
      await fs.writeFile(path.join(dir, 'pkg003', 'staged.txt'), 'new\nfile\n');
      await git(dir, ['add', 'pkg003/staged.txt']);
      if (n % 10 === 4) {
        await git(dir, ['commit', '-q', '-m', `agent ${n} commits`]);
      }
      break;
  }
}

/** `count` worktrees of a repository of folders × files; the caller disposes of `repo`. */
export async function createScaleFixture(count: number, folders = 10, filesPerFolder = 20): Promise<ScaleFixture> {
  const repo = await createBenchRepo(undefined, folders, filesPerFolder);
  try {
    const records: AgentRecord[] = [];
    for (let n = 0; n < count; n++) {
      const id = `s${String(n).padStart(4, '0')}`;
      const worktree = path.join(repo.worktreeRoot, id);
      await repo.git('worktree', 'add', '-q', '-b', `agents/${id}`, worktree, repo.sha);
      await changeWorktree(worktree, n);
      const record = sampleAgentRecord(id, repo.dir, n);
      records.push({
        ...record,
        status: 'succeeded',
        cwd: worktree,
        worktreePath: worktree,
        worktreePresent: true,
        baseSha: repo.sha,
        changedFiles: [],
        mergedInto: undefined,
        savedRef: undefined,
        statusBeforeDiscard: undefined,
        exitCode: 0,
      });
    }
    return { repo, records };
  } catch (e) {
    await repo.dispose();
    throw e;
  }
}
