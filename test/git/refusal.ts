// The AgentError a refused git operation gives, asserted by its code or its reason and returned for the
// test to look into.
import * as assert from 'node:assert/strict';
import { AgentError, type AgentErrorCode, type AgentErrorReason } from '../../src/core/errors';

/** The refusal, asserted by its code. */
export function refusal(promise: Promise<unknown>, code: AgentErrorCode): Promise<AgentError> {
  return rejectedWith(promise, code, (e) => AgentError.isCode(e, code));
}

/** The same, asserted by its reason (the kind of failure) rather than its code. */
export function rejection(promise: Promise<unknown>, reason: AgentErrorReason): Promise<AgentError> {
  return rejectedWith(promise, reason, (e) => AgentError.is(e, reason));
}

async function rejectedWith(
  promise: Promise<unknown>,
  expected: string,
  check: (error: unknown) => error is AgentError,
): Promise<AgentError> {
  const error = await promise.then(
    () => assert.fail(`expected an AgentError ${expected}`),
    (e: unknown) => e,
  );
  assert.ok(check(error), `expected AgentError ${expected}, got ${String(error)}`);
  return error;
}
