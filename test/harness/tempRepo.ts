// A throw-away git repository under os.tmpdir(), used as the workspace folder of a test run.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface TempRepo {
  /** Real (symlink-free) absolute path of the work tree, <tmp>/pa-repo-XXXXXX/sample-project. */
  dir: string;
  git(...args: string[]): Promise<string>;
  /** Removes the repository and anything created beside it. */
  dispose(): Promise<void>;
}

export const defaultFiles: Readonly<Record<string, string>> = {
  'README.md': '# Sample project\n\nA repository made by the test harness.\n',
  'src/greet.js': 'exports.greet = (name) => `Hello, ${name}!`;\n',
  'src/math.js': 'exports.add = (a, b) => a + b;\n',
  'package.json': '{\n  "name": "sample-project",\n  "version": "1.0.0",\n  "private": true\n}\n',
};

/** Creates a repository on branch main with `files` committed in one commit. */
export async function createTempRepo(files: Readonly<Record<string, string>> = defaultFiles): Promise<TempRepo> {
  // The repository sits in a private parent so that siblings the extension creates next to it
  // (`<repo>.worktrees/`) are removed with it.
  const parent = await realpath(await mkdtemp(join(tmpdir(), 'pa-repo-')));
  const dir = join(parent, 'sample-project');
  await mkdir(dir);
  const git = async (...args: string[]): Promise<string> => (await execFileAsync('git', args, { cwd: dir })).stdout;
  try {
    await git('init', '--quiet', '--initial-branch=main');
    await git('config', 'user.name', 'Parallel Agents Tests');
    await git('config', 'user.email', 'tests@parallel-agents.invalid');
    await git('config', 'commit.gpgsign', 'false');
    for (const [rel, content] of Object.entries(files)) {
      await mkdir(dirname(join(dir, rel)), { recursive: true });
      await writeFile(join(dir, rel), content);
    }
    await git('add', '--all');
    await git('commit', '--quiet', '--message', 'Initial commit');
  } catch (e) {
    await rm(parent, { recursive: true, force: true });
    throw e;
  }
  return { dir, git, dispose: () => rm(parent, { recursive: true, force: true, maxRetries: 3 }) };
}
