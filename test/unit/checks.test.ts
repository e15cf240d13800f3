// The check command's pure parts: which argv checks an agent, the record after its end, staleness,
// and the follow-up Fix Failing Check sends.
import * as assert from 'node:assert/strict';
import type { AgentCheck } from '../../src/core/agent';
import { checkCommandFor, checkVerdict, endedCheck, fixOutputBytes, fixPrompt } from '../../src/core/agents/checks';
import { builtinProfiles, validateProfile } from '../../src/core/clis/profiles';

const check: AgentCheck = {
  state: 'running',
  command: ['npm', 'run', 'test:unit'],
  startedAt: 1000,
  tree: 'a'.repeat(40),
  logPath: '/logs/x.check.log',
};

describe('checks', () => {
  it("takes the profile's checkCommand before the setting, and none when neither is set", () => {
    const profiles = [...builtinProfiles, { ...builtinProfiles[0], name: 'own', checkCommand: ['make', 'check'] }];
    assert.deepEqual(checkCommandFor({ profile: 'own' }, profiles, { checkCommand: ['npm', 'test'] }), [
      'make',
      'check',
    ]);
    assert.deepEqual(checkCommandFor({ profile: 'demo' }, profiles, { checkCommand: ['npm', 'test'] }), [
      'npm',
      'test',
    ]);
    assert.equal(checkCommandFor({ profile: 'demo' }, profiles, {}), undefined);
    assert.equal(checkCommandFor({ profile: 'demo' }, profiles, { checkCommand: [] }), undefined);
    assert.equal(checkCommandFor({ profile: 'demo' }, profiles, { checkCommand: ['  '] }), undefined);
    const empty = [{ ...builtinProfiles[0], checkCommand: [] }];
    assert.deepEqual(checkCommandFor({ profile: 'demo' }, empty, { checkCommand: ['npm', 'test'] }), ['npm', 'test']);
  });

  it('validates a profile checkCommand as an array of strings', () => {
    const base = { name: 'p', command: 'x', args: [] };
    assert.deepEqual(
      (validateProfile({ ...base, checkCommand: ['a', 'b'] }) as { checkCommand: readonly string[] }).checkCommand,
      ['a', 'b'],
    );
    assert.equal(
      validateProfile({ ...base, checkCommand: 'npm test' }),
      'profile "p": "checkCommand" must be an array of strings',
    );
    assert.equal(
      validateProfile({ ...base, checkCommand: [1] }),
      'profile "p": "checkCommand" must be an array of strings',
    );
    assert.ok(!('checkCommand' in (validateProfile(base) as object)));
  });

  it('records passed, failed (code or signal), stopped and could-not-start ends', () => {
    assert.deepEqual(endedCheck(check, { outcome: 'succeeded' }, 2000), {
      ...check,
      state: 'passed',
      exitCode: 0,
      endedAt: 2000,
    });
    assert.deepEqual(endedCheck(check, { outcome: 'failed', error: '', exit: { exitCode: 2 } }, 2000), {
      ...check,
      state: 'failed',
      exitCode: 2,
      endedAt: 2000,
    });
    const killed = endedCheck(check, { outcome: 'failed', error: '', exit: { signal: 'SIGKILL' } }, 2000);
    assert.equal(killed.state, 'failed');
    assert.equal(killed.signal, 'SIGKILL');
    assert.equal(killed.exitCode, undefined);
    assert.equal(endedCheck(check, { outcome: 'stopped' }, 2000).state, 'failed');
    const error = endedCheck(check, { outcome: 'failed', error: '', exit: { error: 'spawn EACCES' } }, 2000);
    assert.equal(error.state, 'error');
    assert.equal(error.error, 'checkCommandNotStarted {"command":"npm run test:unit","error":"spawn EACCES"}');
  });

  it('calls a passed or failed check stale when the content tree differs', () => {
    const passed: AgentCheck = { ...check, state: 'passed', exitCode: 0 };
    assert.equal(checkVerdict(undefined, 'b'), undefined);
    assert.equal(checkVerdict(passed, check.tree), 'passed');
    assert.equal(checkVerdict(passed, 'b'.repeat(40)), 'stale');
    assert.equal(checkVerdict(passed, undefined), 'stale', 'a tree that cannot be read now is no proof');
    assert.equal(checkVerdict({ ...check, state: 'failed' }, check.tree), 'failed');
    assert.equal(checkVerdict({ ...check, state: 'failed' }, 'c'), 'stale');
    assert.equal(checkVerdict(check, 'c'), 'running');
    assert.equal(checkVerdict({ ...check, state: 'error' }, 'c'), 'error');
  });

  it('sends the command, its exit and the end of its output, capped at a line start', () => {
    const failed: AgentCheck = { ...check, state: 'failed', exitCode: 3 };
    const prompt = fixPrompt(failed, 'line one\nFAIL: expected 2\n\n');
    assert.match(prompt, /^The check command `npm run test:unit` failed with exit code 3 in this folder\./);
    assert.ok(prompt.endsWith('\nline one\nFAIL: expected 2'));
    assert.match(fixPrompt({ ...failed, signal: 'SIGTERM' }, ''), /was ended by SIGTERM[\s\S]*\(no output\)$/);
    const long = Array.from({ length: 2000 }, (_, i) => `line ${i} ñ`).join('\n');
    const capped = fixPrompt(failed, long);
    const tail = capped.slice(capped.indexOf('output:\n\n') + 'output:\n\n'.length);
    assert.ok(new TextEncoder().encode(tail).length <= fixOutputBytes);
    assert.ok(tail.endsWith('line 1999 ñ'));
    assert.match(tail, /^line \d+ ñ\n/, 'starts at a whole line');
    assert.ok(!tail.includes('\uFFFD'));
  });
});
