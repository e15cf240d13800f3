/**
 * An agent's review comments: written on lines of its changed files, kept on its record (so in the
 * registry, shared by every window and kept across reloads), sent as ONE follow-up to the agent in
 * its own folder, then marked addressed once a later run has changed the lines they quote.
 */
import type { AgentRecord, ReviewComment } from '../agent';
import { isActive } from '../agent';
import type { AgentManager } from '../agents';
import { AgentError } from '../errors';
import type { Clock } from '../ports';
import { joinPath } from '../../util/paths';
import type { Disposable } from '../../util/event';
import type { FileBytes } from './hunkActions';
import type { PlacedFinding } from './reviewerPrompt';
import { awaitingCheck, linesChanged, linesOf, pendingComments, quoteLines, reviewPrompt } from './reviewComments';
import { textOf } from './textLines';

export interface ReviewDeps {
  readonly manager: Pick<AgentManager, 'get' | 'list' | 'annotate' | 'followUp' | 'onDidChangeAgent'>;
  readonly files: Pick<FileBytes, 'read'>;
  readonly clock: Clock;
  readonly newId: () => string;
}

export interface NewComment {
  readonly path: string;
  /** 1-based, inclusive. */
  readonly startLine: number;
  readonly endLine: number;
  readonly body: string;
}

export interface SentReview {
  readonly prompt: string;
  readonly count: number;
}

export class ReviewComments implements Disposable {
  /** The run end (endedAt) each agent's sent comments were last checked against. */
  private readonly checkedAt = new Map<string, number>();
  private readonly listener: Disposable;

  constructor(private readonly deps: ReviewDeps) {
    this.listener = deps.manager.onDidChangeAgent((change) => {
      if (change.kind !== 'removed') {
        void this.checkAfterRun(change.id).catch(() => undefined);
      }
    });
  }

  /** Checks the comments of every agent whose last run ended after they were sent (after a reload, say). */
  resume(): void {
    for (const record of this.deps.manager.list()) {
      void this.checkAfterRun(record.id).catch(() => undefined);
    }
  }

  comments(agentId: string): readonly ReviewComment[] {
    return this.deps.manager.get(agentId).comments ?? [];
  }

  /**
   * Adds a pending comment on lines of one of the agent's changed files. Refused, with nothing
   * stored, on a file the agent deleted or did not change, and without text.
   */
  async add(agentId: string, comment: NewComment): Promise<ReviewComment> {
    const record = this.deps.manager.get(agentId);
    const body = comment.body.trim();
    if (body === '') {
      throw new AgentError('emptyComment', {});
    }
    const lines = await this.linesOfChanged(record, comment.path);
    // A range given last line first is the same range; a line before the first is the first.
    const startLine = Math.max(1, Math.min(comment.startLine, comment.endLine));
    const endLine = Math.max(startLine, comment.startLine, comment.endLine);
    const added: ReviewComment = {
      id: this.deps.newId(),
      path: comment.path,
      startLine,
      endLine,
      quoted: quoteLines(lines, startLine, endLine),
      body,
      createdAt: this.deps.clock.now(),
    };
    // Read again after the await: another window may have added comments meanwhile.
    const now = this.deps.manager.get(agentId);
    this.deps.manager.annotate(agentId, { comments: [...(now.comments ?? []), added] });
    return added;
  }

  /**
   * Adds a reviewer agent's comments at once, pending, marked with its profile (`reviewer`): those on
   * lines quote them, a general one quotes nothing. placeFindings put them on files the agent kept.
   */
  async addFromReviewer(agentId: string, placed: readonly PlacedFinding[], reviewer: string): Promise<ReviewComment[]> {
    const record = this.deps.manager.get(agentId);
    const lines = new Map<string, string[]>();
    for (const path of new Set(placed.filter((p) => !p.general).map((p) => p.path))) {
      lines.set(path, await this.linesOfChanged(record, path));
    }
    const createdAt = this.deps.clock.now();
    const added = placed.map(
      (p): ReviewComment => ({
        id: this.deps.newId(),
        path: p.path,
        startLine: p.general ? 1 : p.startLine,
        endLine: p.general ? 1 : p.endLine,
        // Stryker disable next-line ArrayDeclaration: equivalent, every path of a finding on lines was read above
        quoted: p.general ? [] : quoteLines(lines.get(p.path) ?? [], p.startLine, p.endLine),
        body: p.body,
        createdAt,
        reviewer,
        ...(p.general ? { general: true as const } : {}),
      }),
    );
    const now = this.deps.manager.get(agentId);
    this.deps.manager.annotate(agentId, { comments: [...(now.comments ?? []), ...added] });
    return added;
  }

  /** Changes a pending comment's text (the person edits a reviewer's comment, or their own). */
  edit(agentId: string, commentId: string, body: string): void {
    const text = body.trim();
    if (text === '') {
      throw new AgentError('emptyComment', {});
    }
    const comments = this.comments(agentId);
    if (comments.some((c) => c.id === commentId)) {
      this.deps.manager.annotate(agentId, {
        comments: comments.map((c) => (c.id === commentId ? { ...c, body: text } : c)),
      });
    }
  }

  /** Removes a comment; one already gone is no error. */
  remove(agentId: string, commentId: string): void {
    const comments = this.comments(agentId);
    if (comments.some((c) => c.id === commentId)) {
      this.deps.manager.annotate(agentId, { comments: comments.filter((c) => c.id !== commentId) });
    }
  }

  /**
   * Sends every pending comment as one follow-up: each with its file, lines, the lines there now and
   * its text. Refused, with nothing sent or marked, when none is pending or a commented file is gone.
   */
  async send(agentId: string): Promise<SentReview> {
    const record = this.deps.manager.get(agentId);
    const pending = pendingComments(record.comments);
    if (pending.length === 0) {
      throw new AgentError('emptyReview', { title: record.title });
    }
    const now = new Map<string, string[]>();
    for (const path of new Set(pending.filter((c) => !c.general).map((c) => c.path))) {
      now.set(path, await this.linesOfChanged(record, path));
    }
    const toSend = pending.map((c) => ({
      ...c,
      // Stryker disable next-line ArrayDeclaration: equivalent, every path of a comment on lines was read above
      lines: c.general ? [] : quoteLines(now.get(c.path) ?? [], c.startLine, c.endLine),
    }));
    const prompt = reviewPrompt(toSend);
    // Taken before the run starts: the run's endedAt is then never earlier than the comments' sentAt.
    const sentAt = this.deps.clock.now();
    await this.deps.manager.followUp(agentId, prompt);
    const sent = new Map(toSend.map((c) => [c.id, c.lines]));
    const comments = this.comments(agentId).map((c) =>
      sent.has(c.id) ? { ...c, quoted: sent.get(c.id) ?? c.quoted, sentAt } : c,
    );
    this.deps.manager.annotate(agentId, { comments });
    return { prompt, count: pending.length };
  }

  /**
   * After a run of the agent ended (once per run end): each sent comment whose lines the run changed
   * is marked addressed. Returns the comments marked now.
   */
  async checkAfterRun(agentId: string): Promise<readonly ReviewComment[]> {
    const record = this.deps.manager.get(agentId);
    const endedAt = record.endedAt;
    // Stryker disable next-line ConditionalExpression: equivalent, awaitingCheck finds none when endedAt is undefined
    if (endedAt === undefined || isActive(record.status) || this.checkedAt.get(agentId) === endedAt) {
      return [];
    }
    const waiting = awaitingCheck(record.comments, endedAt);
    if (waiting.length === 0) {
      return [];
    }
    this.checkedAt.set(agentId, endedAt);
    const files = new Map<string, string[] | undefined>();
    for (const path of new Set(waiting.map((c) => c.path))) {
      const bytes = await this.deps.files.read(joinPath(record.cwd, path));
      // A file gone, or no longer text, no longer holds the lines.
      // Stryker disable next-line ConditionalExpression: equivalent, textOf(undefined) throws, which gives undefined
      files.set(path, bytes === undefined ? undefined : textLinesOrUndefined(bytes, path));
    }
    const addressed = waiting.filter((c) => linesChanged(c.quoted, files.get(c.path), c.startLine));
    if (addressed.length > 0) {
      const ids = new Set(addressed.map((c) => c.id));
      const comments = this.comments(agentId).map((c) => (ids.has(c.id) ? { ...c, addressed: true } : c));
      this.deps.manager.annotate(agentId, { comments });
    }
    return addressed;
  }

  dispose(): void {
    this.listener.dispose();
  }

  /** The lines of a changed, not deleted, file of the agent, as they are in its folder now. */
  private async linesOfChanged(record: AgentRecord, path: string): Promise<string[]> {
    const file = record.changedFiles.find((f) => f.path === path);
    if (!file) {
      throw new AgentError('reviewFileNotChanged', { title: record.title, path });
    }
    const bytes = file.kind === 'deleted' ? undefined : await this.deps.files.read(joinPath(record.cwd, path));
    if (bytes === undefined) {
      throw new AgentError('reviewFileDeleted', { title: record.title, path });
    }
    return linesOf(textOf(bytes, path));
  }
}

function textLinesOrUndefined(bytes: Uint8Array, path: string): string[] | undefined {
  // Not next-line: no comment can stand on the catch block's own line. Runs to the end of the file.
  // Stryker disable BlockStatement: equivalent, the catch block emptied returns undefined as well
  try {
    return linesOf(textOf(bytes, path));
  } catch {
    return undefined;
  }
}
