// What the Visual Studio Marketplace and Open VSX read from the .vsix, checked on the installed copy
// (code-server unpacks the .vsix's extension/ folder as it is: harness/runVsix.ts): the icon is a
// 128×128 PNG (no SVG icon is accepted), at most 30 keywords including the ones users search for,
// a gallery banner, a license (Open VSX refuses an extension without one), publisher and name as
// the registries spell ids, and README/CHANGELOG images that resolve: shipped in the package or
// https, never SVG (vsce and the Marketplace refuse SVG images from untrusted hosts).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { extensionId } from '../suite/helpers';

interface ListingManifest {
  name: string;
  publisher: string;
  license?: string;
  icon?: string;
  keywords?: string[];
  categories?: string[];
  galleryBanner?: { color?: string; theme?: string };
  engines: { vscode?: string };
}

/** Width and height from a PNG's IHDR chunk, after checking the PNG signature. */
function pngSize(file: string): { width: number; height: number } {
  const bytes = fs.readFileSync(file);
  assert.equal(bytes.subarray(0, 8).toString('hex'), '89504e470d0a1a0a', `${file} is a PNG`);
  assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** vsce stores README.md as readme.md, CHANGELOG.md as changelog.md and LICENSE as LICENSE.txt. */
function packaged(root: string, base: RegExp): string {
  const name = fs.readdirSync(root).find((f) => base.test(f));
  assert.ok(name, `a file matching ${base} is in the package`);
  return path.join(root, name);
}

/** Every image a Markdown file shows: `![alt](src "title")` and `<img src="...">`. */
function imageSources(markdown: string): string[] {
  const md = [...markdown.matchAll(/!\[[^\]]*\]\(\s*<?([^)\s>]+)>?[^)]*\)/g)].map((m) => m[1]);
  const html = [...markdown.matchAll(/<img\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]);
  return [...md, ...html];
}

describe('the .vsix as the Marketplace and Open VSX list it', () => {
  let root: string;
  let manifest: ListingManifest;

  before(() => {
    const extension = vscode.extensions.getExtension(extensionId);
    assert.ok(extension, `${extensionId} is installed`);
    root = extension.extensionPath;
    manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as ListingManifest;
  });

  it('has a 128×128 PNG icon in the package', () => {
    assert.ok(manifest.icon, 'package.json names an icon');
    assert.match(manifest.icon, /\.png$/i);
    const icon = path.join(root, manifest.icon);
    assert.ok(fs.existsSync(icon), `${manifest.icon} is in the package`);
    assert.deepEqual(pngSize(icon), { width: 128, height: 128 });
  });

  it('has at most 30 distinct keywords, among them what users search for, and a gallery banner', () => {
    const keywords = manifest.keywords ?? [];
    assert.ok(keywords.length <= 30, `${keywords.length} keywords (the Marketplace takes 30)`);
    assert.equal(new Set(keywords.map((k) => k.toLowerCase())).size, keywords.length, 'no keyword twice');
    for (const wanted of ['agents', 'worktree', 'claude', 'codex', 'gemini', 'copilot', 'parallel']) {
      assert.ok(keywords.includes(wanted), `keyword "${wanted}"`);
    }
    assert.match(manifest.galleryBanner?.color ?? '', /^#[0-9a-f]{6}$/i);
    assert.ok(['dark', 'light'].includes(manifest.galleryBanner?.theme ?? ''), 'banner theme dark or light');
    assert.ok((manifest.categories ?? []).length > 0, 'categories');
  });

  it('has a license field and the LICENSE file it names', () => {
    assert.equal(manifest.license, 'MIT');
    const text = fs.readFileSync(packaged(root, /^license(\.txt|\.md)?$/i), 'utf8');
    assert.match(text, /^MIT License/);
  });

  it('has the ids and engine the registries require', () => {
    // Marketplace publisher ids and extension names; Open VSX takes the publisher as the namespace.
    assert.match(manifest.publisher, /^[a-z0-9][a-z0-9-]*$/i);
    assert.match(manifest.name, /^[a-z0-9][a-z0-9-]*$/i);
    assert.match(manifest.engines.vscode ?? '', /^\^\d+\.\d+\.\d+$/);
  });

  for (const file of ['README', 'CHANGELOG']) {
    it(`${file}: every image is in the package or https, and none is an SVG`, () => {
      const text = fs.readFileSync(packaged(root, new RegExp(`^${file}\\.md$`, 'i')), 'utf8');
      const sources = imageSources(text);
      const bad = sources.filter((src) => {
        if (/\.svg(\?|#|$)/i.test(src) || /^data:image\/svg/i.test(src)) {
          return true;
        }
        if (/^[a-z][a-z0-9+.-]*:/i.test(src)) {
          return !/^https:\/\//i.test(src);
        }
        return !fs.existsSync(path.join(root, decodeURI(src).replace(/^\.?\//, '')));
      });
      assert.deepEqual(bad, [], `${file} shows only images that resolve`);
      if (file === 'README') {
        assert.ok(sources.includes('media/screenshot-agents.png'), 'the first screen shows the screenshot');
      }
    });
  }
});
