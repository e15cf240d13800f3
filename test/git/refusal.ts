// The AgentError a refused git operation gives, asserted by its code and returned for the test to look into.
import * as assert from 'node:assert/strict';
import { AgentError, type AgentErrorCode } from '../../src/core/errors';

export async function refusal(promise: Promise<unknown>, code: AgentErrorCode): Promise<AgentError> {
  const error = await promise.then(
    () => assert.fail(`expected an AgentError ${code}`),
    (e: unknown) => e,
  );
  assert.ok(AgentError.isCode(error, code), `expected AgentError ${code}, got ${String(error)}`);
  return error;
}
