import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../..');

describe('README', () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
  };
  const settings = pkg.contributes.configuration.properties;

  it('has one settings-table row per contributed setting, with its default', () => {
    const start = readme.indexOf('## Settings');
    const table = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const rows = new Map(
      [...table.matchAll(/^\| `(parallelAgents\.[A-Za-z]+)` \| ([^|]+) \|/gm)].map((m) => [m[1], m[2].trim()]),
    );
    assert.deepEqual([...rows.keys()].sort(), Object.keys(settings).sort());
    for (const [id, shown] of rows) {
      const value = settings[id].default;
      const expected = value === '' ? '*(empty)*' : `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
      assert.equal(shown, expected, `${id}: README says ${shown}, package.json ${JSON.stringify(value)}`);
    }
  });

  it('gives the two commands for a fresh machine', () => {
    assert.match(readme, /npm run demo/);
    assert.match(readme, /npm test/);
  });
});
