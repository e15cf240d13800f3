import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  assertRestored,
  assertUntouched,
  recordFolder,
  recordWorkspace,
  workspaceChanges,
  type WorkspaceRecord,
} from '../harness/untouched';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Changed keys: all of them, and the content ones only. */
function changed(before: WorkspaceRecord): { all: string[]; content: string[] } {
  return {
    all: workspaceChanges(before).map((c) => (c.trace ? `${c.key} [written]` : c.key)),
    content: workspaceChanges(before, { contentOnly: true }).map((c) => c.key),
  };
}

const anHourAgo = new Date(Date.now() - 3600_000);

describe('untouched: the record of a worktree notices every kind of change', function () {
  this.timeout(30_000);
  let tmp: string;
  let repo: string;

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-untouched-')));
    repo = path.join(tmp, 'repo');
    fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'config', 'user.name', 't');
    git(repo, 'config', 'user.email', 't@t');
    fs.writeFileSync(path.join(repo, 'app.js'), 'console.log("hi");\n');
    fs.writeFileSync(path.join(repo, 'src', 'lib.js'), 'exports.x = 1;\n');
    fs.writeFileSync(path.join(repo, '.gitignore'), '*.log\n');
    // Old times: any later write gets a time that differs, whatever the clock's resolution.
    for (const file of ['app.js', 'src/lib.js', '.gitignore']) {
      fs.utimesSync(path.join(repo, file), anHourAgo, anHourAgo);
    }
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'one');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'two');
    git(repo, 'branch', 'other');
    fs.writeFileSync(path.join(repo, 'debug.log'), 'ignored\n');
    fs.writeFileSync(path.join(repo, 'notes.txt'), 'untracked\n');
    for (const file of ['debug.log', 'notes.txt', 'src', '.']) {
      fs.utimesSync(path.join(repo, file), anHourAgo, anHourAgo);
    }
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('reports nothing when nothing changed, and classifies tracked, untracked and ignored files', () => {
    const before = recordWorkspace(repo);
    git(repo, 'log', '--oneline');
    assert.deepEqual(changed(before), { all: [], content: [] });
    assertUntouched(before);
    assert.match(before.content.get('file app.js')!, /^tracked, mode 644, "console.log\(\\"hi\\"\);\\n"/);
    assert.match(before.content.get('file notes.txt')!, /^untracked, /);
    assert.match(before.content.get('file debug.log')!, /^ignored, /);
    assert.match(before.content.get('HEAD')!, /^on refs\/heads\/main at [0-9a-f]{40}$/);
  });

  it("notices a tracked file's mtime touched with the same bytes (a trace, not content)", () => {
    const before = recordWorkspace(repo);
    fs.utimesSync(path.join(repo, 'app.js'), new Date(), new Date());
    assert.deepEqual(changed(before), { all: ['file app.js [written]'], content: [] });
    assert.throws(() => assertUntouched(before, 'after touching'), /after touching: .* was touched[\s\S]*file app\.js/);
    assertRestored(before);
  });

  it('notices a tracked file rewritten with the same bytes', () => {
    const before = recordWorkspace(repo);
    fs.writeFileSync(path.join(repo, 'app.js'), 'console.log("hi");\n');
    assert.deepEqual(changed(before), { all: ['file app.js [written]'], content: [] });
  });

  it("notices a tracked file's bytes and mode", () => {
    const before = recordWorkspace(repo);
    fs.writeFileSync(path.join(repo, 'src', 'lib.js'), 'exports.x = 2;\n');
    fs.chmodSync(path.join(repo, 'app.js'), 0o755);
    assert.deepEqual(changed(before), {
      all: ['file app.js', 'file src/lib.js', 'file app.js [written]', 'file src/lib.js [written]'],
      content: ['file app.js', 'file src/lib.js'],
    });
    assert.throws(() => assertRestored(before), /file src\/lib\.js:\n\s+before: .*exports\.x = 1;[\s\S]*after: .*= 2;/);
  });

  it('notices a tracked file deleted', () => {
    const before = recordWorkspace(repo);
    fs.rmSync(path.join(repo, 'src', 'lib.js'));
    assert.deepEqual(changed(before).content, ['file src/lib.js']);
  });

  it('notices a changed index entry', () => {
    const before = recordWorkspace(repo);
    git(repo, 'update-index', '--chmod=+x', 'app.js');
    assert.deepEqual(changed(before), {
      all: ['index entry app.js', 'index bytes [written]', 'index stat [written]'],
      content: ['index entry app.js'],
    });
  });

  it('notices the index rewritten with the same entries: other bytes, or the same bytes written again', () => {
    const index = path.join(repo, '.git', 'index');
    const before = recordWorkspace(repo);
    git(repo, 'read-tree', 'HEAD');
    assert.deepEqual(changed(before), { all: ['index bytes [written]', 'index stat [written]'], content: [] });

    const again = recordWorkspace(repo);
    fs.writeFileSync(index, fs.readFileSync(index));
    assert.deepEqual(changed(again), { all: ['index stat [written]'], content: [] });
  });

  it('notices a ref moved, added or deleted, refs/parallel-agents and refs/stash included', () => {
    git(repo, 'update-ref', 'refs/parallel-agents/saved/a', 'HEAD');
    git(repo, 'update-ref', 'refs/parallel-agents/saved/gone', 'HEAD');
    const before = recordWorkspace(repo);
    git(repo, 'update-ref', 'refs/parallel-agents/saved/a', 'HEAD~');
    git(repo, 'update-ref', '-d', 'refs/parallel-agents/saved/gone');
    git(repo, 'branch', '-f', 'other', 'HEAD~');
    git(repo, 'stash', 'store', '-m', 'parked', git(repo, 'commit-tree', 'HEAD^{tree}', '-p', 'HEAD', '-m', 'stash'));
    assert.deepEqual(changed(before).content, [
      'ref refs/heads/other',
      'ref refs/parallel-agents/saved/a',
      'ref refs/parallel-agents/saved/gone',
      'ref refs/stash',
    ]);
    const expected = [
      'ref refs/heads/other',
      'ref refs/parallel-agents/saved/a',
      'ref refs/parallel-agents/saved/gone',
    ];
    assertUntouched(before, 'only refs moved', { except: [...expected, 'ref refs/stash'] });
    assert.throws(
      () => assertUntouched(before, 'refs moved', { except: expected }),
      /1 difference\):\n\s+ref refs\/stash:/,
    );
  });

  it('notices HEAD switched to another branch at the same commit, and detached', () => {
    const before = recordWorkspace(repo);
    git(repo, 'symbolic-ref', 'HEAD', 'refs/heads/other');
    assert.deepEqual(changed(before).content, ['HEAD']);
    git(repo, 'update-ref', '--no-deref', 'HEAD', 'HEAD');
    const detached = recordWorkspace(repo);
    assert.match(detached.content.get('HEAD')!, /^detached at /);
  });

  it('notices an untracked file added or changed, and an empty folder', () => {
    const before = recordWorkspace(repo);
    fs.writeFileSync(path.join(repo, 'new.txt'), 'new\n');
    fs.writeFileSync(path.join(repo, 'notes.txt'), 'untracked, edited\n');
    fs.mkdirSync(path.join(repo, 'empty'));
    assert.deepEqual(changed(before), {
      all: ['file new.txt', 'file notes.txt', 'folder empty/', 'file notes.txt [written]', 'folder ./ [written]'],
      content: ['file new.txt', 'file notes.txt', 'folder empty/'],
    });
  });

  it('notices an ignored file changed or added, and a file that became untracked', () => {
    const before = recordWorkspace(repo);
    fs.writeFileSync(path.join(repo, 'debug.log'), 'ignored, rewritten\n');
    fs.writeFileSync(path.join(repo, 'src', 'trace.log'), 'new ignored file\n');
    git(repo, 'rm', '-q', '--cached', 'app.js');
    assert.deepEqual(changed(before).content, [
      'file app.js',
      'file debug.log',
      'file src/trace.log',
      'index entry app.js',
    ]);
    assert.match(recordWorkspace(repo).content.get('file app.js')!, /^untracked, /);
  });

  it('notices a merge left in progress (content) and ORIG_HEAD written (a trace)', () => {
    const before = recordWorkspace(repo);
    fs.writeFileSync(path.join(repo, '.git', 'ORIG_HEAD'), `${git(repo, 'rev-parse', 'HEAD')}\n`);
    assert.deepEqual(changed(before), { all: ['git dir ORIG_HEAD [written]'], content: [] });
    fs.writeFileSync(path.join(repo, '.git', 'MERGE_HEAD'), `${git(repo, 'rev-parse', 'HEAD~')}\n`);
    assert.deepEqual(changed(before).content, ['git dir MERGE_HEAD']);
  });

  it("records a linked worktree's own git dir, and a plain folder", () => {
    const wt = path.join(tmp, 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'agent', wt);
    const before = recordWorkspace(wt);
    assert.match(before.content.get('HEAD')!, /^on refs\/heads\/agent /);
    // An --exec step that fails stops the rebase, leaving it in progress.
    assert.throws(() => git(wt, 'rebase', '-q', '--exec', 'false', 'HEAD~'));
    assert.deepEqual(changed(before).content, ['HEAD', 'git dir rebase-merge']);

    const folder = path.join(tmp, 'plain');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'keep.txt'), 'keep\n');
    const plain = recordFolder(folder);
    assertUntouched(plain);
    fs.appendFileSync(path.join(folder, 'keep.txt'), 'more\n');
    assert.deepEqual(
      workspaceChanges(plain, { contentOnly: true }).map((c) => c.key),
      ['file keep.txt'],
    );
  });
});
