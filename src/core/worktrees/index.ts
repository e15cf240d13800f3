/**
 * Worktrees: an agent's place to work before its process starts. The repository folder it is
 * dispatched from, a unique branch and folder name (reserved so parallel dispatches never collide),
 * the worktree made by git, the files copied into it (`.worktreeinclude`) and the project's setup
 * command run in it. Agents and reconcile use the names; nothing here knows an agent's run.
 */
export { chooseFolder, isRepository } from './folderChoice';
export type { WorkspaceFolderInfo } from './folderChoice';
export { WorktreeNames, createWorktree, createWorktreeOnBranch } from './worktreeNames';
export type { ReservedWorktree } from './worktreeNames';
export { WorktreePrep, commandText } from './worktreePrep';
export { SetupRun, setupRunId } from './setupRun';
export type { SetupEnd } from './setupRun';
export { WorktreePool } from './worktreePool';
export type { PoolDeps, PoolUsage } from './worktreePool';
export { maxPoolSize, poolDirFor, poolFolderName, poolSize } from './poolSettings';
export type { PoolSettings } from './poolSettings';
export type { PoolDisk, PoolEntryInfo, PoolGit, PoolMeta } from './poolPorts';
