// Restore and saveBranch on the real git binary: what Restore refuses (nothing saved, not saved
// work, a folder that holds something, a branch that moved), and what a restore that fails half way
// leaves: nothing it made (worktree, registration, branch, folder), everything that was there before.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentError } from '../../src/core/errors';
import { NodeGit } from '../../src/node/git/createGit';
import { assertRestored, assertUntouched, recordFolder, recordWorkspace } from '../harness/untouched';
import { statIntoIndex } from './indexStat';
import { refusal } from './refusal';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

const savedRef = 'refs/parallel-agents/saved/busy';

describe('Restore refusals and rollback, saveBranch (real git)', function () {
  this.timeout(60_000);
  const port = new NodeGit();
  let root: string;
  let repo: string;
  let wt: string;
  /** The commit the agent branch was at when its work was saved. */
  let tip: string;

  const registered = () =>
    git(repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree '))
      .map((l) => l.slice('worktree '.length));
  const hasBranch = (branch: string) => git(repo, 'branch', '--list', branch) !== '';
  const branchTip = (branch: string) => git(repo, 'rev-parse', `refs/heads/${branch}`);
  /** A post-checkout hook of the repository (shared by its worktrees); `worktree add` exits with its status. */
  const postCheckout = (script: string) => {
    const file = path.join(repo, '.git', 'hooks', 'post-checkout');
    fs.writeFileSync(file, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  };
  /**
   * A git that runs the real one ("$real"), except for commands whose arguments hold `words`
   * (space-separated, in order): for those `script` (sh) runs first, and decides whether the real git follows.
   */
  const wrapper = (name: string, words: string, script: string): string => {
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const file = path.join(root, name);
    const lines = ['#!/bin/sh', `real="${realGit}"`, `case " $* " in *" ${words} "*) ${script};; esac`];
    fs.writeFileSync(file, [...lines, 'exec "$real" "$@"', ''].join('\n'), { mode: 0o755 });
    return file;
  };
  /** What a failed restore must leave: no registration, no branch it made, the repository's refs as they were. */
  const assertNothingMade = (repoBefore: ReturnType<typeof recordWorkspace>, worktrees: string[]) => {
    assert.deepEqual(registered(), worktrees, 'no worktree stays registered');
    const registry = path.join(repo, '.git', 'worktrees');
    assert.deepEqual(fs.existsSync(registry) ? fs.readdirSync(registry) : [], [], 'no registry entry is left');
    assertUntouched(repoBefore, 'the main worktree and every ref');
  };

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-restore-')));
    repo = path.join(root, 'repo');
    wt = path.join(root, 'wt-busy');
    fs.mkdirSync(repo);
    git(repo, 'init', '--quiet', '--initial-branch=main');
    git(repo, 'config', 'user.name', 'Restore Tests');
    git(repo, 'config', 'user.email', 'restore@example.invalid');
    fs.writeFileSync(path.join(repo, 'README.md'), '# readme\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '--quiet', '-m', 'initial');
    git(repo, 'worktree', 'add', '--quiet', '-b', 'agents/busy', wt);
    fs.writeFileSync(path.join(wt, 'feature.txt'), 'committed\n');
    git(wt, 'add', '-A');
    git(wt, 'commit', '--quiet', '-m', 'agent work');
    tip = git(wt, 'rev-parse', 'HEAD');
  });

  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** Saves the agent's uncommitted work, then removes its worktree and (unless `keepBranch`) its branch. */
  async function savedAndRemoved(keepBranch = false): Promise<void> {
    fs.writeFileSync(path.join(wt, 'feature.txt'), 'uncommitted edit\n');
    fs.writeFileSync(path.join(wt, 'draft.txt'), 'untracked\n');
    await port.saveWork(wt, savedRef, 'saved');
    git(repo, 'worktree', 'remove', '--force', wt);
    if (!keepBranch) {
      git(repo, 'branch', '-D', 'agents/busy');
    }
  }

  describe('refusals, before anything is made', () => {
    it('refuses a ref that does not exist, naming it', async () => {
      await savedAndRemoved();
      const before = recordWorkspace(repo);
      const e = await refusal(
        port.restoreWork(repo, wt, 'agents/busy', 'refs/parallel-agents/saved/none'),
        'noSavedWork',
      );
      assert.deepEqual(e.data, { ref: 'refs/parallel-agents/saved/none' });
      assert.equal(e.reason, 'worktreeFailed');
      assert.ok(!fs.existsSync(wt));
      assertUntouched(before);
    });

    it('refuses a ref to a commit without a parent: not saved work', async () => {
      await savedAndRemoved();
      const orphan = git(repo, 'commit-tree', '-m', 'no parent', `${tip}^{tree}`);
      git(repo, 'update-ref', 'refs/parallel-agents/saved/orphan', orphan);
      const before = recordWorkspace(repo);
      const e = await refusal(
        port.restoreWork(repo, wt, 'agents/busy', 'refs/parallel-agents/saved/orphan'),
        'notSavedWork',
      );
      assert.deepEqual(e.data, { ref: 'refs/parallel-agents/saved/orphan' });
      assert.ok(!fs.existsSync(wt));
      assertUntouched(before);
    });

    it('refuses a folder that holds anything, even one hidden file, and leaves it and the repository as they were', async () => {
      await savedAndRemoved();
      fs.mkdirSync(wt);
      fs.writeFileSync(path.join(wt, '.hidden'), 'the user’s\n');
      const folder = recordFolder(wt);
      const before = recordWorkspace(repo);
      // A folder named relative to the repository is the same folder.
      const relative = path.relative(repo, wt);
      const e = await refusal(port.restoreWork(repo, relative, 'agents/busy', savedRef), 'restoreFolderNotEmpty');
      assert.deepEqual(e.data, { path: wt });
      assert.equal(e.reason, 'targetExists');
      assertUntouched(folder, 'the folder the user had');
      assertUntouched(before);
      assert.ok(!hasBranch('agents/busy'), 'no branch is made');
    });

    it('refuses a branch that moved since the save, naming both commits', async () => {
      await savedAndRemoved(true);
      git(repo, 'branch', '--force', 'agents/busy', 'main');
      const main = git(repo, 'rev-parse', 'main');
      const before = recordWorkspace(repo);
      const e = await refusal(port.restoreWork(repo, wt, 'agents/busy', savedRef), 'branchMovedSinceSave');
      assert.deepEqual(e.data, { branch: 'agents/busy', now: main, saved: tip });
      assert.ok(!fs.existsSync(wt));
      assertUntouched(before);
    });
  });

  describe('restores', () => {
    it('into an empty folder that already exists, relative to the repository, on a new branch at the saved base', async () => {
      await savedAndRemoved();
      fs.mkdirSync(wt);
      await port.restoreWork(repo, path.relative(repo, wt), 'agents/busy', savedRef);
      assert.equal(branchTip('agents/busy'), tip);
      assert.equal(git(wt, 'symbolic-ref', 'HEAD'), 'refs/heads/agents/busy');
      assert.equal(fs.readFileSync(path.join(wt, 'feature.txt'), 'utf8'), 'uncommitted edit\n');
      assert.equal(fs.readFileSync(path.join(wt, 'draft.txt'), 'utf8'), 'untracked\n');
      assert.equal(git(wt, 'status', '--porcelain'), 'M feature.txt\n?? draft.txt');
    });
  });

  describe('a restore that fails half way undoes what it made', () => {
    it('new branch: the worktree, its registration, the branch and the folder all go', async () => {
      await savedAndRemoved();
      postCheckout('exit 3');
      const worktrees = registered();
      const before = recordWorkspace(repo);
      const e = await refusal(port.restoreWork(repo, wt, 'agents/busy', savedRef), 'worktreeCommandFailed');
      assert.equal(e.reason, 'worktreeFailed');
      assert.ok(!fs.existsSync(wt), 'the folder it made is gone');
      assert.ok(!hasBranch('agents/busy'), 'the branch it made is gone');
      assertNothingMade(before, worktrees);
    });

    it('an empty folder that was there stays, empty', async () => {
      await savedAndRemoved();
      fs.mkdirSync(wt);
      postCheckout('exit 3');
      const worktrees = registered();
      const before = recordWorkspace(repo);
      await refusal(port.restoreWork(repo, wt, 'agents/busy', savedRef), 'worktreeCommandFailed');
      assert.deepEqual(fs.readdirSync(wt), [], 'the folder is there again, empty');
      assertNothingMade(before, worktrees);
    });

    it('a branch that was there (at the saved base) stays', async () => {
      await savedAndRemoved(true);
      postCheckout('exit 3');
      const worktrees = registered();
      const before = recordWorkspace(repo);
      await refusal(port.restoreWork(repo, wt, 'agents/busy', savedRef), 'worktreeCommandFailed');
      assert.equal(branchTip('agents/busy'), tip, 'the branch it did not make is kept');
      assert.ok(!fs.existsSync(wt));
      assertNothingMade(before, worktrees);
    });

    it('a branch it made but that got a commit meanwhile is kept, with that commit', async () => {
      await savedAndRemoved();
      postCheckout(
        [
          'unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX',
          'git commit -q --allow-empty -m "committed during the restore"',
          'exit 3',
        ].join('\n'),
      );
      const worktrees = registered();
      await refusal(port.restoreWork(repo, wt, 'agents/busy', savedRef), 'worktreeCommandFailed');
      assert.equal(git(repo, 'log', '-1', '--format=%s', 'refs/heads/agents/busy'), 'committed during the restore');
      assert.equal(git(repo, 'rev-parse', 'refs/heads/agents/busy^'), tip);
      assert.ok(!fs.existsSync(wt));
      assert.deepEqual(registered(), worktrees);
    });

    it('a checkout left on another branch is refused and undone', async () => {
      await savedAndRemoved();
      postCheckout(
        [
          '[ -n "$PA_TEST_NESTED" ] && exit 0',
          'unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX',
          'PA_TEST_NESTED=1 git checkout -q --detach',
        ].join('\n'),
      );
      const worktrees = registered();
      const before = recordWorkspace(repo);
      await refusal(port.restoreWork(repo, wt, 'agents/busy', savedRef), 'worktreeOnOtherBranch');
      assert.ok(!fs.existsSync(wt));
      assert.ok(!hasBranch('agents/busy'));
      assertNothingMade(before, worktrees);
    });

    it('a branch checked out in another worktree: git refuses the checkout, and that worktree and the branch stay', async () => {
      await savedAndRemoved(true);
      const other = path.join(root, 'wt-other');
      git(repo, 'worktree', 'add', '--quiet', other, 'agents/busy');
      const worktrees = registered();
      const otherBefore = recordWorkspace(other);
      const e = await refusal(port.restoreWork(repo, wt, 'agents/busy', savedRef), 'worktreeCommandFailed');
      assert.match(e.detail ?? '', /already checked out/);
      assert.deepEqual(registered(), worktrees);
      assert.ok(!fs.existsSync(wt), 'no folder is left');
      assert.equal(branchTip('agents/busy'), tip);
      assertUntouched(otherBefore, 'the worktree that has the branch');
    });

    it('writing the saved files fails: the worktree, its registration, the branch and the folder all go', async () => {
      await savedAndRemoved();
      const failing = new NodeGit({
        binary: wrapper('git-no-restore', 'restore', 'echo "refused by the test" >&2; exit 1'),
      });
      const worktrees = registered();
      const before = recordWorkspace(repo);
      const e = await refusal(failing.restoreWork(repo, wt, 'agents/busy', savedRef), 'worktreeCommandFailed');
      assert.equal(e.reason, 'worktreeFailed');
      assert.equal(e.detail, 'refused by the test');
      assert.ok(!fs.existsSync(wt));
      assert.ok(!hasBranch('agents/busy'));
      assertNothingMade(before, worktrees);
    });

    for (const folderThere of [false, true]) {
      it(`a worktree git fails to remove goes all the same, registration and branch too (${folderThere ? 'empty folder' : 'no folder'})`, async () => {
        await savedAndRemoved();
        if (folderThere) {
          fs.mkdirSync(wt);
        }
        postCheckout('exit 3');
        const stubborn = new NodeGit({ binary: wrapper('git-no-remove', 'worktree remove', 'exit 1') });
        const worktrees = registered();
        const before = recordWorkspace(repo);
        await refusal(stubborn.restoreWork(repo, wt, 'agents/busy', savedRef), 'worktreeCommandFailed');
        if (folderThere) {
          assert.deepEqual(fs.readdirSync(wt), [], 'the folder is there again, empty');
        } else {
          assert.ok(!fs.existsSync(wt), 'the folder it made is gone');
        }
        assert.ok(!hasBranch('agents/busy'), 'the branch it made is gone');
        assertNothingMade(before, worktrees);
        // Nothing is left in the way of another try.
        fs.rmSync(path.join(repo, '.git', 'hooks', 'post-checkout'));
        await port.restoreWork(repo, wt, 'agents/busy', savedRef);
        assert.equal(fs.readFileSync(path.join(wt, 'feature.txt'), 'utf8'), 'uncommitted edit\n');
      });
    }

    it('a worktree locked before the restore failed goes all the same, registration and branch too', async () => {
      await savedAndRemoved();
      postCheckout(
        [
          'unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX',
          'git worktree lock --reason test "$(pwd)"',
          'exit 3',
        ].join('\n'),
      );
      const worktrees = registered();
      const before = recordWorkspace(repo);
      await refusal(port.restoreWork(repo, wt, 'agents/busy', savedRef), 'worktreeCommandFailed');
      assert.ok(!fs.existsSync(wt));
      assert.ok(!hasBranch('agents/busy'));
      assertNothingMade(before, worktrees);
    });

    it('a worktree git no longer knows: its folder still goes', async () => {
      await savedAndRemoved();
      // The hook unregisters the new worktree, so `git worktree remove` cannot remove it.
      postCheckout('rm -rf "$GIT_DIR"\nexit 3');
      const worktrees = registered();
      await refusal(port.restoreWork(repo, wt, 'agents/busy', savedRef), 'worktreeCommandFailed');
      assert.ok(!fs.existsSync(wt), 'the folder it made is gone');
      assert.ok(!hasBranch('agents/busy'));
      assert.deepEqual(registered(), worktrees);
    });
  });

  describe('saveWork', () => {
    it('refuses a ref name that is not full, writing nothing', async () => {
      fs.writeFileSync(path.join(wt, 'feature.txt'), 'edited\n');
      const before = recordWorkspace(wt);
      for (const ref of ['parallel-agents/saved/short', 'HEAD', 'agents/busy']) {
        await refusal(port.saveWork(wt, ref, 'm'), 'notAFullRef');
        assert.throws(
          () => port.saveBranch(repo, 'agents/busy', ref, 'm'),
          (e) => AgentError.isCode(e, 'notAFullRef'),
        );
      }
      assertUntouched(before);
    });

    it('keeps its temporary index in the temporary folder, and deletes it', async () => {
      const log = path.join(root, 'index-used');
      const logging = new NodeGit({
        binary: wrapper('git-log-index', 'write-tree', `echo "$GIT_INDEX_FILE" > "${log}"`),
      });
      fs.writeFileSync(path.join(wt, 'feature.txt'), 'edited\n');
      const temp = path.join(root, 'tmp');
      fs.mkdirSync(temp);
      const tmpdir = process.env.TMPDIR;
      process.env.TMPDIR = temp;
      const saved = await logging
        .saveWork(wt, 'refs/parallel-agents/saved/temp', 'm')
        .finally(() => (tmpdir === undefined ? delete process.env.TMPDIR : (process.env.TMPDIR = tmpdir)));
      const index = fs.readFileSync(log, 'utf8').trim();
      assert.equal(path.dirname(path.dirname(index)), temp, index);
      assert.deepEqual(fs.readdirSync(temp), [], 'the temporary index and its folder are deleted');
      assert.equal(git(repo, 'show', `${saved.sha}:feature.txt`), 'edited');
    });

    it('rereads an entry whose stat data the change kept, when the index is not older than it (git’s racy entry)', async () => {
      const index = git(wt, 'rev-parse', '--path-format=absolute', '--git-path', 'index');
      const file = path.join(wt, 'feature.txt');
      // Same size as the committed "committed\n"; the entry is then given the file's new stat data,
      // as if the change had come within the tick in which git looked at the file.
      fs.writeFileSync(file, 'COMMITTED\n');
      // A time just before a second ends: an index copy a millisecond later would be in the next second.
      const when = Math.floor(Date.now() / 1000) - 3600 + 0.9995;
      fs.utimesSync(file, when, when);
      statIntoIndex(index, 'feature.txt', file);
      fs.utimesSync(index, when, when);
      const saved = await port.saveWork(wt, 'refs/parallel-agents/saved/racy', 'm');
      assert.equal(git(repo, 'show', `${saved.sha}:feature.txt`), 'COMMITTED');
    });

    it('clears the hidden bits of every entry that has one, through the copy of the index', async () => {
      const lines: string[] = [];
      const logger = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error() {} };
      const logged = new NodeGit({ logger });
      for (const [file, flag] of [
        ['README.md', '--assume-unchanged'],
        ['feature.txt', '--assume-unchanged'],
        ['a.txt', '--skip-worktree'],
        ['b.txt', '--skip-worktree'],
      ]) {
        if (!fs.existsSync(path.join(wt, file))) {
          fs.writeFileSync(path.join(wt, file), 'committed\n');
          git(wt, 'add', file);
          git(wt, 'commit', '--quiet', '-m', file);
        }
        fs.writeFileSync(path.join(wt, file), `${file} edited under ${flag}\n`);
        git(wt, 'update-index', flag, file);
      }
      const saved = await logged.saveWork(wt, 'refs/parallel-agents/saved/hidden', 'm');
      assert.deepEqual(lines, [], 'the copy of the index was used');
      for (const [file, flag] of [
        ['README.md', '--assume-unchanged'],
        ['feature.txt', '--assume-unchanged'],
        ['a.txt', '--skip-worktree'],
        ['b.txt', '--skip-worktree'],
      ]) {
        assert.equal(git(repo, 'show', `${saved.sha}:${file}`), `${file} edited under ${flag}`);
      }
    });

    it('reads the hidden bits from its copy of the index, not from the index, which may change meanwhile', async () => {
      fs.writeFileSync(path.join(wt, 'feature.txt'), 'edited under assume-unchanged\n');
      git(wt, 'update-index', '--assume-unchanged', 'feature.txt');
      // The bit goes from the worktree's index between the copy and the listing (as another git of the agent could do).
      const clearing = new NodeGit({
        binary: wrapper(
          'git-clear',
          'ls-files -v',
          '(unset GIT_INDEX_FILE; "$real" update-index --no-assume-unchanged feature.txt)',
        ),
      });
      const saved = await clearing.saveWork(wt, 'refs/parallel-agents/saved/changed', 'm');
      assert.equal(git(repo, 'show', `${saved.sha}:feature.txt`), 'edited under assume-unchanged');
    });

    it('saves from HEAD when the index is unreadable, leaving that index as it was', async () => {
      const index = git(wt, 'rev-parse', '--path-format=absolute', '--git-path', 'index');
      fs.writeFileSync(path.join(wt, 'feature.txt'), 'edited\n');
      fs.writeFileSync(path.join(wt, 'new.txt'), 'untracked\n');
      fs.writeFileSync(index, 'not an index\n');
      const saved = await port.saveWork(wt, 'refs/parallel-agents/saved/corrupt', 'm');
      assert.equal(fs.readFileSync(index, 'utf8'), 'not an index\n');
      assert.equal(git(repo, 'rev-parse', `${saved.sha}^`), tip);
      assert.equal(git(repo, 'show', `${saved.sha}:feature.txt`), 'edited');
      assert.equal(git(repo, 'show', `${saved.sha}:new.txt`), 'untracked');
      assert.equal(git(repo, 'show', `${saved.sha}:README.md`), '# readme');
    });
  });

  describe('saveBranch', () => {
    it('refuses a branch that does not exist, making no ref', async () => {
      const before = recordWorkspace(repo);
      await refusal(port.saveBranch(repo, 'agents/none', 'refs/parallel-agents/saved/none', 'm'), 'gitCommandFailed');
      assertRestored(before);
      assert.equal(git(repo, 'for-each-ref', 'refs/parallel-agents/'), '');
    });

    it('writes the ref with a reflog entry saying why, when the repository keeps reflogs of every ref', async () => {
      git(repo, 'config', 'core.logAllRefUpdates', 'always');
      const saved = await port.saveBranch(repo, 'agents/busy', 'refs/parallel-agents/saved/branch', 'm');
      const work = await port.saveWork(wt, 'refs/parallel-agents/saved/work', 'm');
      for (const { ref, sha } of [saved, work]) {
        assert.equal(git(repo, 'reflog', 'show', '--format=%H %gs', ref), `${sha} parallel-agents: save work`);
      }
    });
  });
});
