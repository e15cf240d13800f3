import type { ChangeGit } from '../git';
import type { FolderWatcher, Logger } from '../ports';
import { ChangeTracker, type Publish, type TrackedFolder } from './changeTracker';

/** The tracker an AgentManager uses: full and incremental change sets from its git. */
export function changeTrackerFor(
  deps: { readonly git: ChangeGit; readonly watcher: FolderWatcher; readonly logger: Logger },
  publish: Publish,
): ChangeTracker {
  const git = deps.git;
  const computePaths = git.changeSetOf
    ? (folder: TrackedFolder, paths: readonly string[]) => git.changeSetOf!(folder.cwd, folder.baseSha, paths)
    : undefined;
  return new ChangeTracker(
    deps.watcher,
    (folder) => git.changeSet(folder.cwd, folder.baseSha),
    publish,
    deps.logger,
    undefined,
    { computePaths },
  );
}
