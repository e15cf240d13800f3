import * as assert from 'node:assert/strict';
import { checkPrompt, maxPromptBytes } from '../../src/core/agents/dispatchChecks';
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
});
