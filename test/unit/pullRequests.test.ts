import * as assert from 'node:assert/strict';
import {
  choosePullRequestRoute,
  chooseRemote,
  compareUrl,
  ghCreateArgs,
  pullRequestUrlOf,
  redact,
  webRepository,
} from '../../src/core/landing';
import { parseRemoteUrls } from '../../src/node/git/remoteParsers';

const remote = (name: string, url = `https://github.com/o/${name}.git`) => ({ name, url });

describe('Create Pull Request: compare URLs', () => {
  it('builds GitHub compare pages from https, scp-like ssh and ssh:// remotes, .git or not', () => {
    const want = 'https://github.com/o/r/compare/main...agents/fix-bug?expand=1';
    for (const url of [
      'https://github.com/o/r.git',
      'https://github.com/o/r',
      'https://github.com/o/r/',
      'git@github.com:o/r.git',
      'git@github.com:o/r',
      'ssh://git@github.com/o/r.git',
      'ssh://git@ssh.github.com:443/o/r.git',
      'git://github.com/o/r.git',
    ]) {
      assert.equal(compareUrl(url, 'agents/fix-bug', 'main'), want, url);
    }
  });

  it('leaves the base to the host when none is given, and encodes what a path cannot hold', () => {
    assert.equal(
      compareUrl('git@github.com:o/r.git', 'agents/a#1'),
      'https://github.com/o/r/compare/agents/a%231?expand=1',
    );
  });

  it('never puts the credentials of the remote URL in the page', () => {
    const url = compareUrl('https://user:secret-token@github.com/o/r.git', 'agents/a', 'main');
    assert.equal(url, 'https://github.com/o/r/compare/main...agents/a?expand=1');
    assert.equal(compareUrl('https://ghp_token@github.com/o/r.git', 'b'), 'https://github.com/o/r/compare/b?expand=1');
  });

  it('builds GitLab merge request pages, subgroups included', () => {
    assert.equal(
      compareUrl('git@gitlab.com:group/sub/r.git', 'agents/a', 'main'),
      'https://gitlab.com/group/sub/r/-/merge_requests/new?merge_request[source_branch]=agents%2Fa&merge_request[target_branch]=main',
    );
    assert.equal(
      compareUrl('https://gitlab.example.com/g/r.git', 'b'),
      'https://gitlab.example.com/g/r/-/merge_requests/new?merge_request[source_branch]=b',
    );
  });

  it('knows no page for unknown hosts, local paths and file URLs', () => {
    for (const url of [
      'https://git.example.com/o/r.git',
      'git@example.com:o/r.git',
      '/srv/git/r.git',
      'file:///srv/git/r.git',
      '../r.git',
      'C:\\repos\\r.git',
      'https://github.com/justowner',
    ]) {
      assert.equal(compareUrl(url, 'b', 'main'), undefined, url);
      assert.equal(webRepository(url), undefined, url);
    }
  });
});

describe('Create Pull Request: credentials hidden', () => {
  it('hides user and token of http(s) URLs and passwords of any URL in free text', () => {
    const stderr =
      "fatal: unable to access 'https://user:secret-token@github.com/o/r.git/': 403\n" +
      'remote: see https://ghp_abc123@github.com/o/r and ssh://me:pw@host/r, ssh://git@github.com/o/r';
    const shown = redact(stderr);
    for (const secret of ['secret-token', 'ghp_abc123', 'me:pw']) {
      assert.ok(!shown.includes(secret), shown);
    }
    assert.ok(shown.includes("'https://***@github.com/o/r.git/'"), shown);
    assert.ok(shown.includes('ssh://git@github.com/o/r'), 'a user without a password is no secret');
    assert.equal(redact('nothing to hide: git@github.com:o/r.git'), 'nothing to hide: git@github.com:o/r.git');
  });
});

describe('Create Pull Request: which remote', () => {
  it("takes the branch's upstream remote, else origin, else the only remote", () => {
    const all = [remote('fork'), remote('origin'), remote('upstream')];
    assert.equal(chooseRemote(all, 'upstream')?.name, 'upstream');
    assert.equal(chooseRemote(all)?.name, 'origin');
    assert.equal(chooseRemote(all, 'gone')?.name, 'origin');
    assert.equal(chooseRemote([remote('fork')])?.name, 'fork');
    assert.equal(chooseRemote([remote('fork'), remote('upstream')]), undefined);
    assert.equal(chooseRemote([]), undefined);
  });

  it('reads remotes and their first URL from git config -z --get-regexp', () => {
    const output =
      'remote.origin.url\nhttps://github.com/o/r.git\0' +
      'remote.my.fork.url\ngit@github.com:me/r.git\0' +
      'remote.origin.url\nhttps://mirror.example/r.git\0';
    assert.deepEqual(parseRemoteUrls(output), [
      { name: 'origin', url: 'https://github.com/o/r.git' },
      { name: 'my.fork', url: 'git@github.com:me/r.git' },
    ]);
    assert.deepEqual(parseRemoteUrls(''), []);
  });
});

describe('Create Pull Request: which way', () => {
  const github = { remoteUrl: 'git@github.com:o/r.git', branch: 'agents/a', base: 'main' };

  it('uses the GitHub Pull Requests extension first, then gh, for a GitHub remote', () => {
    assert.deepEqual(choosePullRequestRoute({ ...github, prExtension: true, gh: '/usr/bin/gh' }), {
      kind: 'extension',
    });
    assert.deepEqual(choosePullRequestRoute({ ...github, prExtension: false, gh: '/usr/bin/gh' }), {
      kind: 'gh',
      gh: '/usr/bin/gh',
    });
  });

  it('falls back to the compare page when neither is there', () => {
    assert.deepEqual(choosePullRequestRoute({ ...github, prExtension: false }), {
      kind: 'compareUrl',
      url: 'https://github.com/o/r/compare/main...agents/a?expand=1',
    });
  });

  it('sends a GitLab remote to its merge request page whatever GitHub tools exist', () => {
    const route = choosePullRequestRoute({
      remoteUrl: 'https://gitlab.com/g/r.git',
      branch: 'b',
      prExtension: true,
      gh: '/usr/bin/gh',
    });
    assert.equal(route.kind, 'compareUrl');
  });

  it('reports only the push for a remote with no known web page', () => {
    assert.deepEqual(choosePullRequestRoute({ remoteUrl: '/srv/r.git', branch: 'b', prExtension: true, gh: 'gh' }), {
      kind: 'pushedOnly',
    });
  });
});

describe('Create Pull Request: gh', () => {
  it('passes every value as one argv element', () => {
    const args = ghCreateArgs({ head: 'agents/a', base: 'main', title: 'Fix "it"; rm -rf /', body: 'line 1\n$(x)' });
    assert.deepEqual(args, [
      'pr',
      'create',
      '--head',
      'agents/a',
      '--base',
      'main',
      '--title',
      'Fix "it"; rm -rf /',
      '--body',
      'line 1\n$(x)',
    ]);
    assert.ok(!ghCreateArgs({ head: 'b', title: 't', body: '' }).includes('--base'));
    assert.ok(ghCreateArgs({ head: 'b', title: 't', body: 'x'.repeat(70_000) })[7].length < 65_536);
  });

  it("reads the new pull request's URL from gh's output", () => {
    const out = 'Creating pull request for agents/a into main in o/r\n\nhttps://github.com/o/r/pull/7\n';
    assert.equal(pullRequestUrlOf(out), 'https://github.com/o/r/pull/7');
    assert.equal(pullRequestUrlOf(''), undefined);
  });
});
