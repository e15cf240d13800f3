/** What a new worktree gets from the main one: ignored files it includes, local excludes, submodules. */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parsePathList } from './changeParsers';
import type { GitRunner } from './runner';

export const worktreeIncludeFile = '.worktreeinclude';

export async function worktreeIncludes(runner: GitRunner, repoRoot: string): Promise<string[]> {
  const file = path.join(repoRoot, worktreeIncludeFile);
  const stat = await fs.lstat(file).catch(() => undefined);
  if (!stat?.isFile()) {
    return [];
  }
  // Git itself applies the patterns (negation, anchoring, folders, **); tracked files never match --others.
  const matched = await runner.run(repoRoot, ['ls-files', '--others', '--ignored', `--exclude-from=${file}`, '-z']);
  const candidates = parsePathList(matched.stdout);
  if (candidates.length === 0) {
    return [];
  }
  // Only what the repository ignores: anything else would show up as the agent's change and be committed.
  const ignored = await runner.run(repoRoot, ['check-ignore', '--stdin', '-z'], {
    input: `${candidates.join('\0')}\0`,
    okCodes: [0, 1],
  });
  return parsePathList(ignored.stdout);
}

export async function isIgnored(runner: GitRunner, cwd: string, relPath: string): Promise<boolean> {
  const result = await runner.run(cwd, ['check-ignore', '-q', '--', relPath], { okCodes: [0, 1] });
  return result.exitCode === 0;
}

export function excludeLocally(runner: GitRunner, cwd: string, relPath: string): Promise<void> {
  return runner.write(cwd, async () => {
    const gitPath = (await runner.run(cwd, ['rev-parse', '--git-path', 'info/exclude'])).stdout.trim();
    const file = path.resolve(cwd, gitPath);
    const line = `/${relPath
      .replace(/\\/g, '/')
      .replace(/^\/+|\/+$/g, '')
      .replace(/[*?[\\]/g, '\\$&')}`;
    const text = await fs.readFile(file, 'utf8').catch(() => '');
    if (text.split(/\r?\n/).includes(line)) {
      return;
    }
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.appendFile(file, `${text === '' || text.endsWith('\n') ? '' : '\n'}${line}\n`);
  });
}

export async function initSubmodules(runner: GitRunner, worktree: string): Promise<string> {
  const args = ['submodule', 'update', '--init', '--recursive'];
  // No terminal answers a credential prompt here: git fails at once instead of waiting.
  const result = await runner.write(worktree, () => runner.run(worktree, args, { env: { GIT_TERMINAL_PROMPT: '0' } }));
  return `${result.stderr.trim()}\n${result.stdout.trim()}`.trim();
}
