// The AgentError a refused git operation gives, asserted by its code and returned for the test to look into.
import * as assert from 'node:assert/strict';
import { AgentError, type AgentErrorCode, type AgentErrorReason } from '../../src/core/errors';

export async function refusal(promise: Promise<unknown>, code: AgentErrorCode): Promise<AgentError> {
  const error = await promise.then(
    () => assert.fail(`expected an AgentError ${code}`),
    (e: unknown) => e,
  );
  assert.ok(AgentError.isCode(error, code), `expected AgentError ${code}, got ${String(error)}`);
  return error;
}

/** The same, asserted by its reason (the kind of failure) rather than its code. */
export async function rejection(promise: Promise<unknown>, reason: AgentErrorReason): Promise<AgentError> {
  const error = await promise.then(
    () => assert.fail(`expected an AgentError ${reason}`),
    (e: unknown) => e,
  );
  assert.ok(AgentError.is(error, reason), `expected AgentError ${reason}, got ${String(error)}`);
  return error;
}
