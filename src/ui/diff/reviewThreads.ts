/**
 * Review comments in editors (VS Code's Comments API): the user comments on lines of an agent's
 * changed files on the agent's side of a diff (the file in its folder); each stored comment is one
 * thread, shown as pending, sent or addressed. Threads are made from the records (the registry), so
 * they come back after a reload and follow what other windows write.
 */
import * as vscode from 'vscode';
import type { AgentRecord, ReviewComment } from '../../core/agent';
import type { AgentManager } from '../../core/agents';
import { AgentError } from '../../core/errors';
import type { ReviewComments } from '../../core/review';
import { toForwardSlashes } from '../../util/paths';
import { BaseContentProvider } from './baseContentProvider';

export const reviewControllerId = 'parallelAgents.review';

/** One stored comment, as the thread shows it; commands on it (Delete) get this object. */
export class StoredComment implements vscode.Comment {
  readonly mode = vscode.CommentMode.Preview;
  readonly author: vscode.CommentAuthorInformation;
  readonly contextValue = 'reviewComment';
  readonly body: string;
  readonly timestamp: Date;

  constructor(
    readonly agentId: string,
    readonly comment: ReviewComment,
  ) {
    this.body = comment.body;
    this.timestamp = new Date(comment.createdAt);
    // A reviewer agent's comment says whose it is (Review with Agent); the person keeps, edits or deletes it.
    this.author = {
      name: comment.reviewer !== undefined ? vscode.l10n.t('Reviewer ({0})', comment.reviewer) : vscode.l10n.t('You'),
    };
  }
}

interface LiveThread {
  readonly thread: vscode.CommentThread;
  /** The comment and folder it was last drawn from: redrawn only when they change. */
  readonly drawn: string;
  readonly where: string;
}

export class ReviewThreads implements vscode.Disposable {
  private readonly controller: vscode.CommentController;
  private readonly threads = new Map<string, LiveThread>();
  private readonly agentOfThread = new WeakMap<vscode.CommentThread, string>();
  private readonly listener: vscode.Disposable;

  constructor(
    private readonly manager: AgentManager,
    private readonly review: ReviewComments,
  ) {
    this.controller = vscode.comments.createCommentController(reviewControllerId, vscode.l10n.t('Agent Review'));
    this.controller.options = {
      prompt: vscode.l10n.t('Comment for the agent'),
      placeHolder: vscode.l10n.t('What should the agent change in these lines?'),
    };
    this.controller.commentingRangeProvider = { provideCommentingRanges: (doc) => this.commentingRanges(doc) };
    this.listener = manager.onDidChangeAgent(() => this.sync());
    this.sync();
  }

  /** The agent a thread (or a comment of one) belongs to, if it is one of this controller's. */
  agentOf(arg: unknown): string | undefined {
    if (arg instanceof StoredComment) {
      return arg.agentId;
    }
    const thread = arg as vscode.CommentThread | undefined;
    return thread && typeof thread === 'object' ? this.agentOfThread.get(thread) : undefined;
  }

  /** Stores the text typed in a new thread's reply box as a pending comment on the thread's lines. */
  async addFromReply(reply: vscode.CommentReply): Promise<void> {
    const place = this.fileAt(reply.thread.uri);
    if (!place) {
      throw new AgentError('noAgentFile', {});
    }
    const range = reply.thread.range;
    try {
      await this.review.add(place.record.id, {
        path: place.path,
        startLine: range.start.line + 1,
        endLine: range.end.line + 1,
        body: reply.text,
      });
    } catch (e) {
      // No comment can ever be stored on this file: the draft goes with the refusal. Else it stays, to retry.
      if (AgentError.is(e) && (e.code === 'reviewFileDeleted' || e.code === 'reviewFileNotChanged')) {
        reply.thread.dispose();
      }
      throw e;
    }
    // The stored comment has a thread of its own now (sync): the draft goes.
    reply.thread.dispose();
  }

  dispose(): void {
    this.listener.dispose();
    for (const live of this.threads.values()) {
      live.thread.dispose();
    }
    this.threads.clear();
    this.controller.dispose();
  }

  /**
   * Lines that take comments: every line of an agent's changed text file in its folder. The empty
   * agent side of a file the agent deleted takes one too, only so that Add Comment can say why no
   * comment goes there (reviewFileDeleted) instead of the gutter staying silent.
   */
  private commentingRanges(doc: vscode.TextDocument): vscode.Range[] | undefined {
    const place = this.fileAt(doc.uri);
    const file = place?.record.changedFiles.find((f) => f.path === place.path);
    if (!file || file.binary) {
      return undefined;
    }
    return [new vscode.Range(0, 0, Math.max(0, doc.lineCount - 1), 0)];
  }

  /** The agent whose folder holds the file (or whose deleted file's empty side this is), and its path there. */
  private fileAt(uri: vscode.Uri): { record: AgentRecord; path: string } | undefined {
    const base = BaseContentProvider.queryOf(uri);
    if (base) {
      // The agent side of a deletion is a base uri without a path; a left side is never commented on.
      const record = base.path === undefined ? this.manager.list().find((r) => r.id === base.agent) : undefined;
      const deleted = record?.changedFiles.some((f) => f.path === base.file && f.kind === 'deleted');
      return record && deleted ? { record, path: base.file } : undefined;
    }
    if (uri.scheme !== 'file') {
      return undefined;
    }
    const full = toForwardSlashes(uri.fsPath);
    const candidates = this.manager.list().filter((r) => r.worktreePresent !== false && !r.worktreeMissing);
    for (const record of candidates) {
      const root = toForwardSlashes(record.cwd).replace(/\/+$/, '');
      if (full.startsWith(`${root}/`)) {
        const path = full.slice(root.length + 1);
        if (record.changedFiles.some((f) => f.path === path)) {
          return { record, path };
        }
      }
    }
    return undefined;
  }

  /** Makes the threads match the stored comments: new ones drawn, changed ones redrawn, gone ones removed. */
  private sync(): void {
    const live = new Set<string>();
    for (const record of this.manager.list()) {
      if (record.worktreePresent === false) {
        continue;
      }
      for (const comment of record.comments ?? []) {
        const key = `${record.id}/${comment.id}`;
        live.add(key);
        const drawn = `${record.cwd}\n${JSON.stringify(comment)}`;
        const known = this.threads.get(key);
        if (known?.drawn === drawn) {
          continue;
        }
        if (known && known.where === where(record, comment)) {
          // Same place (sent, addressed): repainted in place, so an open thread stays open.
          paint(known.thread, record.id, comment);
          this.threads.set(key, { ...known, drawn });
          continue;
        }
        known?.thread.dispose();
        this.threads.set(key, { thread: this.draw(record, comment), drawn, where: where(record, comment) });
      }
    }
    for (const [key, known] of this.threads) {
      if (!live.has(key)) {
        known.thread.dispose();
        this.threads.delete(key);
      }
    }
  }

  private draw(record: AgentRecord, comment: ReviewComment): vscode.CommentThread {
    const uri = vscode.Uri.file(`${record.cwd.replace(/[\\/]+$/, '')}/${comment.path}`);
    const range = new vscode.Range(comment.startLine - 1, 0, comment.endLine - 1, 0);
    const thread = this.controller.createCommentThread(uri, range, []);
    this.agentOfThread.set(thread, record.id);
    thread.canReply = false;
    paint(thread, record.id, comment);
    return thread;
  }
}

/** Where a comment's thread is: its folder, file and lines. */
function where(record: AgentRecord, comment: ReviewComment): string {
  return `${record.cwd}\n${comment.path}\n${comment.startLine}-${comment.endLine}`;
}

/** A thread's comment, label and state: pending, sent, or addressed (resolved). */
function paint(thread: vscode.CommentThread, agentId: string, comment: ReviewComment): void {
  thread.comments = [new StoredComment(agentId, comment)];
  const state = comment.addressed ? 'addressed' : comment.sentAt !== undefined ? 'sent' : 'pending';
  thread.contextValue = `reviewThread.${state}`;
  const label =
    state === 'addressed'
      ? vscode.l10n.t('Addressed: the agent changed these lines')
      : state === 'sent'
        ? vscode.l10n.t('Sent to the agent')
        : vscode.l10n.t('Pending: not sent yet');
  thread.label = comment.general ? vscode.l10n.t('General comment (its place is not in the diff) · {0}', label) : label;
  thread.state = state === 'addressed' ? vscode.CommentThreadState.Resolved : vscode.CommentThreadState.Unresolved;
}
