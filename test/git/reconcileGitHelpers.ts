// Helpers of the real-git tests of Reconcile's git calls: a repository git refuses to read, and an
// assertion on the AgentError a refusal gives.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentError, type AgentErrorCode } from '../../src/core/errors';

/** Makes every git command in `repo` fail with a message no classifier knows ("Expected git repo version"). */
export function breakRepository(repo: string): () => void {
  const config = path.join(repo, '.git', 'config');
  const before = fs.readFileSync(config, 'utf8');
  fs.writeFileSync(config, before.replace(/repositoryformatversion = 0/, 'repositoryformatversion = 99'));
  assert.notEqual(fs.readFileSync(config, 'utf8'), before);
  return () => fs.writeFileSync(config, before);
}

/** Asserts `e` is the AgentError `code`, with `data` among its data and a detail matching `detail`. */
export function isError(code: AgentErrorCode, data: Record<string, unknown> = {}, detail?: RegExp) {
  return (e: unknown): boolean => {
    assert.ok(AgentError.isCode(e, code), `${code} expected, got ${String(e)}`);
    for (const [key, value] of Object.entries(data)) {
      assert.equal((e.data as Record<string, unknown>)[key], value, key);
    }
    if (detail) {
      assert.match(e.detail ?? '', detail);
    }
    return true;
  };
}
