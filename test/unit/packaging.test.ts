// What `npm run package` puts in the .vsix, as `vsce ls` reports it (offline, and unlike `vsce
// package` it does not run vscode:prepublish, so the development build in dist/ stays as it is).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../..');

function packagedFiles(): string[] {
  const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
  const out = execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: root, encoding: 'utf8' });
  return out
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .sort();
}

/** Every file package.json points at: the code, the schema, icons, walkthrough pages, l10n. */
function referencedFiles(): string[] {
  const manifest = fs.readFileSync(path.join(root, 'package.json'), 'utf8');
  const refs = [...manifest.matchAll(/"(?:\.\/)?((?:dist|media|schemas)\/[^"]+)"/g)].map((m) => m[1]);
  const l10n = fs.readdirSync(path.join(root, 'l10n')).map((f) => `l10n/${f}`);
  return [...new Set([...refs, ...l10n])].sort();
}

describe('the packaged extension (.vsix)', function () {
  this.timeout(60_000);
  let files: string[];
  before(() => {
    files = packagedFiles();
  });

  it('holds exactly what runs, plus README, CHANGELOG and LICENSE', () => {
    const topLevel = [...new Set(files.map((f) => f.split('/')[0]))].sort();
    assert.deepEqual(topLevel, [
      'CHANGELOG.md',
      'LICENSE',
      'README.md',
      'dist',
      'l10n',
      'media',
      'package.json',
      'package.nls.es.json',
      'package.nls.json',
      'schemas',
    ]);
    assert.deepEqual(
      files.filter((f) => f.startsWith('dist/')),
      [
        'dist/demoAgent.js',
        'dist/extension.js',
        'dist/gitSpawnWorker.js',
        'dist/sandbox.js',
        'dist/supervisor.js',
        'dist/uninstall.js',
      ],
    );
  });

  it('holds every file package.json refers to and the English and Spanish bundles', () => {
    const missing = referencedFiles().filter((f) => !files.includes(f));
    assert.deepEqual(missing, []);
    assert.ok(files.includes('l10n/bundle.l10n.json') && files.includes('l10n/bundle.l10n.es.json'));
  });

  it('holds no sources, tests, maps, build output or dependencies', () => {
    const unwanted = files.filter(
      (f) =>
        /^(src|test|out|bench|node_modules|scripts|\.ci)\//.test(f) ||
        /\.(ts|map)$/.test(f) ||
        f.includes('/screenshots/'),
    );
    assert.deepEqual(unwanted, []);
  });
});
