import * as assert from 'node:assert/strict';
import { checkPrompt, checkPromptRoute, maxPromptBytes } from '../../src/core/agents/dispatchChecks';
import { builtinProfiles, findProfile } from '../../src/core/clis/profiles';
import { AgentError } from '../../src/core/errors';
import { englishMessage } from '../../src/ui/errorText';

describe('dispatch checks', () => {
  it('refuses empty, NUL-bearing and over-long prompts with clear reasons', () => {
    assert.throws(
      () => checkPrompt('  \n', 'task'),
      (e) =>
        AgentError.is(e, 'emptyPrompt') && AgentError.isCode(e, 'emptyTask') && /task is empty/.test(englishMessage(e)),
    );
    assert.throws(
      () => checkPrompt('a\0b', 'follow-up'),
      (e) =>
        AgentError.is(e, 'launchFailed') &&
        AgentError.isCode(e, 'nulInFollowUp') &&
        /follow-up contains a NUL/.test(englishMessage(e)),
    );
    assert.throws(
      () => checkPrompt('x'.repeat(maxPromptBytes + 1), 'task'),
      (e) =>
        AgentError.is(e, 'launchFailed') &&
        AgentError.isCode(e, 'taskTooLong') &&
        e.data.maxKb === 120 &&
        /at most 120 KB/.test(englishMessage(e)),
    );
    // Bytes, not characters: 40k three-byte characters are 120 KB.
    assert.throws(
      () => checkPrompt('€'.repeat(41 * 1024), 'task'),
      (e) => AgentError.is(e, 'launchFailed'),
    );
    assert.doesNotThrow(() => checkPrompt('x'.repeat(maxPromptBytes), 'task'));
    assert.doesNotThrow(() => checkPrompt('🚀 مرحبا $(touch x)', 'task'));
  });

  it('refuses a profile that gives the task on stdin in a terminal, and only there', () => {
    const opencode = findProfile(builtinProfiles, 'opencode');
    assert.throws(
      () => checkPromptRoute(opencode, 'terminal'),
      (e) =>
        AgentError.is(e, 'invalidProfile') &&
        AgentError.isCode(e, 'stdinPromptInTerminal') &&
        e.data.profile === 'opencode' &&
        /Profile "opencode" gives the task on standard input, so it cannot run in a terminal/.test(englishMessage(e)),
    );
    assert.doesNotThrow(() => checkPromptRoute(opencode, 'headless'));
    assert.doesNotThrow(() => checkPromptRoute(findProfile(builtinProfiles, 'claude'), 'terminal'));
  });
});
