/** `gh pr create`, run with an argv array (never a shell) in the agent's repository. */
import { execFile } from 'node:child_process';
import { AgentError } from '../core/errors';
import { ghCreateArgs, pullRequestUrlOf, redact, type PullRequestRequest } from '../core/landing';

/**
 * Runs `<gh> pr create …` in `cwd` and resolves with the new pull request's URL (undefined when gh
 * printed none). gh gets the user's environment (its login lives there or in its config), never a
 * prompt; its failure is pullRequestFailed with its words, credentials hidden, as the detail.
 */
export function ghCreatePullRequest(
  gh: string,
  cwd: string,
  request: PullRequestRequest,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const env = { ...process.env, GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1', NO_COLOR: '1' };
  return new Promise((resolve, reject) => {
    execFile(
      gh,
      ghCreateArgs(request),
      { cwd, env, signal, maxBuffer: 1024 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        if (signal?.aborted) {
          reject(new AgentError('cancelled', {}));
        } else if (error) {
          const detail = redact(`${stderr}`.trim() || error.message);
          reject(new AgentError('pullRequestFailed', { branch: request.head, tool: 'gh pr create' }, detail));
        } else {
          resolve(pullRequestUrlOf(`${stdout}`));
        }
      },
    );
  });
}
