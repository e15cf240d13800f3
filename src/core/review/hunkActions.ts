import type { AgentRecord, ChangedFile } from '../agent';
import { AgentError } from '../errors';
import type { ChangeGit } from '../git';
import { repoRelativePath } from '../landing';
import { joinPath } from '../../util/paths';
import { applyToTarget, revertInAgent } from './hunkApply';
import { type LineSelection, selectChanges } from './hunkSelection';
import { diffLines, type LineChange } from './lineDiff';
import { bytesOf, type Lines, splitLines, textOf } from './textLines';

/** Whole files by absolute path. */
export interface FileBytes {
  /** undefined when no file is there. */
  read(path: string): Promise<Uint8Array | undefined>;
  /** Replaces the file's bytes (a file that exists keeps its mode), creating it and its folder when missing. */
  write(path: string, bytes: Uint8Array): Promise<void>;
}

export interface HunkDeps {
  readonly git: Pick<ChangeGit, 'showFile'>;
  readonly files: FileBytes;
}

export interface HunkOutcome {
  /** How many changes (or parts of changes) were applied. */
  readonly changes: number;
  /** The file written: the workspace's for an accept, the agent's for a revert. */
  readonly written: string;
}

const empty = new Uint8Array();

/**
 * Puts the agent's lines that `selections` pick (lines of its diff of `file`, see selectChanges) into
 * the workspace's copy of the file, byte for byte. Refused, with nothing written, when the file is
 * not text, nothing is picked, or the workspace's lines there are no longer the base's.
 */
export async function acceptSelectedLines(
  deps: HunkDeps,
  record: AgentRecord,
  file: ChangedFile,
  selections: readonly LineSelection[],
): Promise<HunkOutcome> {
  if (!record.worktreePath) {
    throw new AgentError('alreadyInWorkspace', { title: record.title });
  }
  // A renamed file's changes are made to the workspace file they were made from: the base's path.
  const written = joinPath(record.repoRoot, repoRelativePath(record, file.oldPath ?? file.path));
  const [{ base, agent, picked }, targetBytes] = await Promise.all([
    pick(deps, record, file, selections),
    deps.files.read(written),
  ]);
  const target = splitLines(textOf(targetBytes ?? empty, file.path));
  const result = applyToTarget(picked, base, agent, target, file.path);
  await deps.files.write(written, bytesOf(result.join('')));
  return { changes: picked.length, written };
}

/**
 * Puts the base's lines back in place of the agent's lines that `selections` pick, in the agent's
 * worktree, byte for byte. Refused, with nothing written, when the file is not text or nothing is
 * picked.
 */
export async function revertSelectedLines(
  deps: HunkDeps,
  record: AgentRecord,
  file: ChangedFile,
  selections: readonly LineSelection[],
): Promise<HunkOutcome> {
  if (!record.worktreePath) {
    throw new AgentError('worksInWorkspace', { title: record.title });
  }
  const { base, agent, picked } = await pick(deps, record, file, selections);
  const written = joinPath(record.cwd, file.path);
  await deps.files.write(written, bytesOf(revertInAgent(picked, base, agent, file.path).join('')));
  return { changes: picked.length, written };
}

/**
 * Both sides of the agent's diff of `file` as lines (the base from git, the agent's file from disk)
 * and the changes between them: what the selections of Accept / Revert Selected Lines pick from,
 * and where the diff editor's Accept Hunk / Revert Hunk lenses go. AgentError('binaryHunks') when
 * either side is not text.
 */
export async function agentDiff(
  deps: HunkDeps,
  record: AgentRecord,
  file: ChangedFile,
): Promise<{ base: Lines; agent: Lines; changes: LineChange[] }> {
  const basePath =
    file.kind === 'added' || file.kind === 'untracked'
      ? undefined
      : repoRelativePath(record, file.oldPath ?? file.path);
  const [baseBytes, agentBytes] = await Promise.all([
    basePath ? deps.git.showFile(record.repoRoot, record.baseSha, basePath) : undefined,
    file.kind === 'deleted' ? undefined : deps.files.read(joinPath(record.cwd, file.path)),
  ]);
  const base = splitLines(textOf(baseBytes ?? empty, file.path));
  const agent = splitLines(textOf(agentBytes ?? empty, file.path));
  return { base, agent, changes: diffLines(base, agent) };
}

/** Both sides of the agent's diff of `file` as lines, and the changes between them the selections pick. */
async function pick(deps: HunkDeps, record: AgentRecord, file: ChangedFile, selections: readonly LineSelection[]) {
  const { base, agent, changes } = await agentDiff(deps, record, file);
  const picked = selectChanges(changes, selections, base, agent);
  if (picked.length === 0) {
    throw new AgentError('noChangeSelected', { path: file.path });
  }
  return { base, agent, picked };
}
