/**
 * Keeps each agent's "viewed" marks true: a mark names the agent's version of the file it was made
 * on, so after every change-set computation the marked files are stamped again (one git process,
 * only for agents with marks) and a file the agent changed again, or no longer changes, is unviewed.
 */
import type { ChangedFile } from '../agent';
import type { ChangeGit } from '../git';
import type { Logger } from '../ports';
import { AgentError } from '../errors';
import { deletedStamp, keptMarks, pathsToStamp, sameMarks } from '../review';
import type { AgentRecords } from './agentRecords';

export class ReviewMarks {
  constructor(
    private readonly git: Pick<ChangeGit, 'hashFiles'>,
    private readonly records: AgentRecords,
    private readonly logger: Logger,
  ) {}

  /** Publishes a new change set, then checks the marks before the refresh resolves: callers see both. */
  async publish(id: string, files: ChangedFile[]): Promise<void> {
    this.records.publishChanges(id, files);
    await this.recheck(id).catch((e: Error) => this.logger.warn(`[Review] viewed marks of ${id}: ${e.message}`));
  }

  /** Marks `paths` of the agent's changed files viewed (with their current stamps) or not viewed. */
  async mark(id: string, paths: readonly string[], viewed: boolean): Promise<void> {
    const record = this.records.get(id);
    const files = paths.map((p) => record.changedFiles.find((f) => f.path === p));
    const unknown = paths.find((_, i) => files[i] === undefined);
    if (unknown !== undefined) {
      throw new AgentError('changeGone', { title: record.title, path: unknown });
    }
    const stamps = new Map<string, string | undefined>();
    if (viewed) {
      const toStamp = files.flatMap((f) => (f && f.kind !== 'deleted' ? [f.path] : []));
      const hashes = await this.git.hashFiles(record.cwd, toStamp);
      toStamp.forEach((p, i) => stamps.set(p, hashes[i]));
      files.forEach((f) => f?.kind === 'deleted' && stamps.set(f.path, deletedStamp));
    }
    if (!this.records.has(id)) {
      return;
    }
    const marks: Record<string, string> = { ...this.records.get(id).viewedFiles };
    for (const p of paths) {
      const stamp = stamps.get(p);
      if (viewed && stamp !== undefined) {
        marks[p] = stamp;
      } else {
        delete marks[p];
      }
    }
    this.records.update(id, { viewedFiles: marks });
  }

  /** After a new change set: drops the marks of files changed again or no longer changed. */
  async recheck(id: string): Promise<void> {
    const before = this.records.has(id) ? this.records.get(id) : undefined;
    if (!before?.viewedFiles || Object.keys(before.viewedFiles).length === 0) {
      return;
    }
    const paths = pathsToStamp(before.viewedFiles, before.changedFiles);
    const hashes = await this.git.hashFiles(before.cwd, paths);
    if (!this.records.has(id)) {
      return;
    }
    const now = this.records.get(id);
    const kept = keptMarks(now.viewedFiles, now.changedFiles, new Map(paths.map((p, i) => [p, hashes[i]])));
    if (!sameMarks(kept, now.viewedFiles)) {
      this.records.update(id, { viewedFiles: kept });
    }
  }
}
