// A repository for the git landing tests (landingGuards, landingRaces): main with app.ts (three
// lines) and README.md committed, agent worktrees branched from main beside it, all in one temp folder.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export function write(dir: string, file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
}

export function commitAll(dir: string, message: string): void {
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', message);
}

export class LandingRepo {
  readonly root: string;
  readonly repo: string;

  /**
   * `committed`: files of the initial commit besides app.ts and README.md; `untracked`: the user's
   * files written after it.
   */
  constructor(prefix: string, committed: Record<string, string>, untracked: Record<string, string>) {
    this.root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
    this.repo = path.join(this.root, 'repo');
    fs.mkdirSync(this.repo);
    git(this.repo, 'init', '-q', '-b', 'main');
    git(this.repo, 'config', 'user.name', 't');
    git(this.repo, 'config', 'user.email', 't@t');
    const initial = { 'app.ts': 'line 1\nline 2\nline 3\n', 'README.md': '# readme\n', ...committed };
    for (const [file, text] of Object.entries(initial)) {
      write(this.repo, file, text);
    }
    commitAll(this.repo, 'initial');
    for (const [file, text] of Object.entries(untracked)) {
      write(this.repo, file, text);
    }
  }

  /** An agent worktree on agents/<name>, branched from main, with `files` committed. */
  agent(name: string, files: Record<string, string>): string {
    const dir = path.join(this.root, `wt-${name}`);
    git(this.repo, 'worktree', 'add', '-q', '-b', `agents/${name}`, dir, 'main');
    for (const [file, text] of Object.entries(files)) {
      write(dir, file, text);
    }
    commitAll(dir, `${name} work`);
    return dir;
  }

  dispose(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}
