// A manager, its review comments and an AgentReviewer on one ManagerFixture: what the Review with
// Agent tests (plain, sandboxed, edges, promises) set up alike.
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents';
import type { Profile } from '../../src/core/clis/profiles';
import { AgentReviewer, ReviewComments, type ReviewerDeps } from '../../src/core/review';
import type { Sandbox } from '../../src/core/sandbox';
import { PathExecutableResolver } from '../../src/node/executableResolver';
import { NodeFileBytes } from '../../src/node/fileBytes';
import { NodeFileSystem } from '../../src/node/fileSystem';
import { type ManagerFixture, demoScript, git } from './managerFixture';

export interface ReviewerSetUp {
  readonly manager: AgentManager;
  readonly review: ReviewComments;
  readonly reviewer: AgentReviewer;
  /** What the reviewer logged, a line each: `level message`. */
  readonly logged: string[];
}

export interface ReviewerOptions {
  /** The reviewer's profiles. */
  readonly profiles: ReviewerDeps['profiles'];
  /** Runs the sandboxed reviewer profiles. */
  readonly sandbox?: Sandbox;
  /** Where its log goes; the fixture's `logs` folder by default. */
  readonly settings?: ReviewerDeps['settings'];
}

let commentIds = 0;

/** `profiles` for the manager and the reviewer alike; `sandbox` runs the sandboxed reviewer profiles. */
export function reviewerSetUp(fixture: ManagerFixture, profiles: () => Profile[], sandbox?: Sandbox): ReviewerSetUp {
  return reviewerOn(fixture, fixture.manager({ profiles }), { profiles, sandbox });
}

/** Review comments and an AgentReviewer on `manager`, whose log lines are kept in `logged`. */
export function reviewerOn(fixture: ManagerFixture, manager: AgentManager, options: ReviewerOptions): ReviewerSetUp {
  const review = new ReviewComments({
    manager,
    files: new NodeFileBytes(),
    clock: { now: () => Date.now() },
    newId: () => `c${commentIds++}`,
  });
  const logged: string[] = [];
  const log = (level: string) => (message: string) => void logged.push(`${level} ${message}`);
  const reviewer = new AgentReviewer({
    manager,
    comments: review,
    git: fixture.git,
    files: new NodeFileBytes(),
    fs: new NodeFileSystem(),
    runner: fixture.headlessRunner(),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    resolver: new PathExecutableResolver({ demoAgentScript: demoScript, runtime: process.execPath }),
    profiles: options.profiles,
    settings: options.settings ?? (() => ({ logDir: path.join(fixture.tmp, 'logs') })),
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
  });
  return { manager, review, reviewer, logged };
}

/** The review snapshot refs of repository `repo`, one a line. */
export const reviewRefsOf = (repo: string): string =>
  git(repo, 'for-each-ref', '--format=%(refname)', 'refs/parallel-agents/review/');
