// A manager, its review comments and an AgentReviewer on one ManagerFixture: what the Review with
// Agent tests (plain and sandboxed) set up alike.
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents';
import type { Profile } from '../../src/core/clis/profiles';
import { AgentReviewer, ReviewComments } from '../../src/core/review';
import type { Sandbox } from '../../src/core/sandbox';
import { PathExecutableResolver } from '../../src/node/executableResolver';
import { NodeFileBytes } from '../../src/node/fileBytes';
import { NodeFileSystem } from '../../src/node/fileSystem';
import { type ManagerFixture, demoScript } from './managerFixture';

export interface ReviewerSetUp {
  readonly manager: AgentManager;
  readonly review: ReviewComments;
  readonly reviewer: AgentReviewer;
}

let commentIds = 0;

/** `profiles` for the manager and the reviewer alike; `sandbox` runs the sandboxed reviewer profiles. */
export function reviewerSetUp(fixture: ManagerFixture, profiles: () => Profile[], sandbox?: Sandbox): ReviewerSetUp {
  const manager = fixture.manager({ profiles });
  const review = new ReviewComments({
    manager,
    files: new NodeFileBytes(),
    clock: { now: () => Date.now() },
    newId: () => `c${commentIds++}`,
  });
  const reviewer = new AgentReviewer({
    manager,
    comments: review,
    git: fixture.git,
    files: new NodeFileBytes(),
    fs: new NodeFileSystem(),
    runner: fixture.headlessRunner(),
    ...(sandbox ? { sandbox } : {}),
    resolver: new PathExecutableResolver({ demoAgentScript: demoScript, runtime: process.execPath }),
    profiles,
    settings: () => ({ logDir: path.join(fixture.tmp, 'logs') }),
    logger: { info() {}, warn() {}, error() {} },
  });
  return { manager, review, reviewer };
}
