// The command a reviewer runs (Review with Agent): its profile's arguments with the prompt in place,
// or, for a sandboxed profile, the sandbox's wrapping of its sandbox arguments with the worktree
// read-only; never the profile unsandboxed when the sandbox cannot run. The real bubblewrap runs a
// sandboxed reviewer in test/sandbox/sandboxedReviewer.test.ts.
import * as assert from 'node:assert/strict';
import type { ResolvedProfile } from '../../src/core/agents';
import type { Profile } from '../../src/core/clis';
import { AgentError } from '../../src/core/errors';
import { reviewerCommand } from '../../src/core/review/reviewerCommand';
import type { Sandbox, SandboxRequest } from '../../src/core/sandbox';
import { agentRecord } from './agentRecords';

describe('the command of a reviewer', () => {
  const record = agentRecord('A', {
    status: 'succeeded',
    cwd: '/wt/A',
    branch: 'agents/a',
    worktreeEnv: { index: 1, ports: {}, vars: { PORT: '3001', SHARED: 'agent' } },
  });
  const plain: Profile = {
    name: 'rev',
    command: 'rev',
    args: ['--print', '${prompt}', 'tail:${prompt}'],
    sandboxArgs: ['--yes', '${prompt}'],
    mode: 'headless',
    env: { SHARED: 'profile', OWN: '1' },
  };
  const resolved = (profile: Profile): ResolvedProfile => ({
    file: '/bin/rev',
    prefixArgs: ['script.js'],
    env: { SHARED: 'resolver', PATH: '/bin' },
    profile,
  });
  const env = { SHARED: 'agent', PATH: '/bin', OWN: '1', PORT: '3001' };

  /** A sandbox that records what it is asked to wrap. */
  function sandbox(unavailable?: Awaited<ReturnType<Sandbox['unavailable']>>) {
    const wrapped: SandboxRequest[] = [];
    const box: Sandbox = {
      unavailable: () => Promise.resolve(unavailable),
      wrap: (request) => {
        wrapped.push(request);
        return { file: '/usr/bin/bwrap', args: ['--', request.file, ...request.args], env: request.env };
      },
    };
    return { box, wrapped };
  }

  it('runs an unsandboxed profile as it is, the prompt in place, even where a sandbox exists', async () => {
    const { box, wrapped } = sandbox();
    const command = await reviewerCommand(box, record, resolved(plain), 'P');
    assert.deepEqual(command, { file: '/bin/rev', args: ['script.js', '--print', 'P', 'tail:P'], env });
    assert.deepEqual(wrapped, []);
    assert.deepEqual(await reviewerCommand(undefined, agentRecord('B'), resolved({ ...plain, env: undefined }), 'P'), {
      file: '/bin/rev',
      args: ['script.js', '--print', 'P', 'tail:P'],
      env: { SHARED: 'resolver', PATH: '/bin' },
    });
  });

  it('wraps a sandboxed profile in the sandbox, read-only, with its sandbox arguments', async () => {
    const { box, wrapped } = sandbox();
    const boxed = { ...plain, sandbox: { allowedHosts: ['api.example.com'] } };
    const command = await reviewerCommand(box, record, resolved(boxed), 'P');
    assert.deepEqual(wrapped, [
      {
        agentId: 'A.review',
        profile: 'rev',
        cwd: '/wt/A',
        branch: 'agents/a',
        policy: { allowedHosts: ['api.example.com'] },
        readOnly: true,
        file: '/bin/rev',
        args: ['script.js', '--yes', 'P'],
        env,
      },
    ]);
    assert.deepEqual(command, { file: '/usr/bin/bwrap', args: ['--', '/bin/rev', 'script.js', '--yes', 'P'], env });
  });

  it('refuses a sandboxed profile where the sandbox cannot run, saying why, and never runs it unsandboxed', async () => {
    const boxed = { ...plain, sandbox: { allowedHosts: [] } };
    const { box, wrapped } = sandbox({ missing: 'bwrap', platform: 'linux' });
    await assert.rejects(
      reviewerCommand(box, record, resolved(boxed), 'P'),
      (e: unknown) =>
        AgentError.isCode(e, 'sandboxUnavailable') &&
        JSON.stringify(e.data) === JSON.stringify({ profile: 'rev', missing: 'bwrap', platform: 'linux' }),
    );
    assert.deepEqual(wrapped, []);
    await assert.rejects(
      reviewerCommand(undefined, record, resolved(boxed), 'P'),
      (e: unknown) =>
        AgentError.isCode(e, 'sandboxUnavailable') &&
        JSON.stringify(e.data) === JSON.stringify({ profile: 'rev', missing: 'platform', platform: 'this host' }),
    );
  });
});
