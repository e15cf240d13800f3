/** Where a repository's warm worktree pool lives and how big it is (see worktreePool.ts). */
import type { ManagerSettings } from '../ports';
import { joinPath } from '../../util/paths';
import { WorktreeNames } from './worktreeNames';

/** The most pool entries kept per repository, whatever the setting says. */
export const maxPoolSize = 16;
/** Folder of the pool under the worktree root; a dot name, so it never matches an agent's slug. */
export const poolFolderName = '.pool';

export type PoolSettings = Pick<
  ManagerSettings,
  'worktreeRoot' | 'setupCommand' | 'symlinkFolders' | 'initSubmodules' | 'worktreePool'
>;

export function poolSize(settings: Pick<ManagerSettings, 'worktreePool'>): number {
  const n = settings.worktreePool ?? 0;
  return Number.isInteger(n) && n > 0 ? Math.min(n, maxPoolSize) : 0;
}

export function poolDirFor(repoRoot: string, settings: PoolSettings): string {
  return joinPath(WorktreeNames.rootFor(repoRoot, settings as ManagerSettings), poolFolderName);
}
