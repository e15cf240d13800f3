import * as assert from 'node:assert/strict';
import { checkPrompt, maxPromptBytes } from '../../src/core/dispatchChecks';
import { AgentError } from '../../src/core/errors';

describe('dispatch checks', () => {
  it('refuses empty, NUL-bearing and over-long prompts with clear reasons', () => {
    assert.throws(
      () => checkPrompt('  \n', 'task'),
      (e) => AgentError.is(e, 'emptyPrompt') && /task is empty/.test(e.message),
    );
    assert.throws(
      () => checkPrompt('a\0b', 'follow-up'),
      (e) => AgentError.is(e, 'launchFailed') && /follow-up contains a NUL/.test(e.message),
    );
    assert.throws(
      () => checkPrompt('x'.repeat(maxPromptBytes + 1), 'task'),
      (e) => AgentError.is(e, 'launchFailed') && /at most 120 KB/.test(e.message),
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
