/** ConflictGit on the real git binary: a merge left in progress in an agent's worktree, and its files. */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { ConflictGit } from '../../core/git';
import { looksBinary } from './changeParsers';
import { hasRef } from './refs';
import type { GitRunner } from './runner';

export class WorktreeMerge implements ConflictGit {
  constructor(private readonly runner: GitRunner) {}

  mergeInProgress(cwd: string): Promise<boolean> {
    return hasRef(this.runner, cwd, 'MERGE_HEAD');
  }

  abortMerge(cwd: string): Promise<void> {
    return this.runner.write(cwd, async () => {
      if (await hasRef(this.runner, cwd, 'MERGE_HEAD')) {
        await this.runner.run(cwd, ['merge', '--abort']);
      }
    });
  }

  async worktreeTexts(cwd: string, paths: readonly string[], maxBytes: number): Promise<(string | undefined)[]> {
    const top = await this.runner.out(cwd, ['rev-parse', '--show-toplevel']);
    return Promise.all(paths.map((p) => readStart(path.join(top, p), maxBytes)));
  }
}

/** The first `maxBytes` of a file as text; undefined when it is missing, not a file, or binary. */
async function readStart(file: string, maxBytes: number): Promise<string | undefined> {
  const handle = await fs.open(file, 'r').catch(() => undefined);
  if (!handle) {
    return undefined;
  }
  try {
    if (!(await handle.stat()).isFile()) {
      return undefined;
    }
    const buffer = Buffer.alloc(maxBytes);
    const { bytesRead } = await handle.read(buffer, 0, maxBytes, 0);
    const bytes = buffer.subarray(0, bytesRead);
    return looksBinary(bytes) ? undefined : bytes.toString('utf8');
  } finally {
    await handle.close();
  }
}
