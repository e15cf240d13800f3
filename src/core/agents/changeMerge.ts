import type { ChangedFile } from '../agent';

/**
 * The paths an incremental refresh re-examines: those that changed, plus every rename candidate of
 * the previous set (added, deleted and renamed files, both sides), because git pairs renames only
 * among the paths it is given. Paths are relative to the tracked folder, '/'-separated.
 */
export function incrementalScope(previous: readonly ChangedFile[], changed: Iterable<string>): string[] {
  const scope = new Set(changed);
  for (const file of previous) {
    if (file.kind === 'added' || file.kind === 'deleted' || file.kind === 'renamed') {
      scope.add(file.path);
      if (file.oldPath !== undefined) {
        scope.add(file.oldPath);
      }
    }
  }
  return [...scope];
}

/** Whether `path` is one of `scope` or lies under one (git matches a folder pathspec the same way). */
function inScope(scope: ReadonlySet<string>, path: string): boolean {
  for (let end = path.length; end > 0; end = path.lastIndexOf('/', end - 1)) {
    if (scope.has(path.slice(0, end))) {
      return true;
    }
  }
  return false;
}

function comparePaths(a: ChangedFile, b: ChangedFile): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/**
 * The previous set with everything inside `scope` replaced by `fresh` (the change set of the scope
 * alone); sorted by path like a full change set.
 */
export function mergeChanges(
  previous: readonly ChangedFile[],
  scope: readonly string[],
  fresh: readonly ChangedFile[],
): ChangedFile[] {
  const within = new Set(scope);
  const kept = previous.filter(
    (f) => !inScope(within, f.path) && (f.oldPath === undefined || !inScope(within, f.oldPath)),
  );
  return [...kept, ...fresh].sort(comparePaths);
}

/** Few enough paths, short enough together, for one command line (Windows allows 32,767 characters). */
export function fitsArgv(paths: readonly string[], maxPaths: number): boolean {
  return paths.length <= maxPaths && paths.reduce((sum, p) => sum + p.length + 13, 0) <= 16_000;
}
