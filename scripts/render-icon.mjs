// Renders the Marketplace / Open VSX icon, media/icon.png (128×128 PNG: the listings take no SVG),
// from the activity-bar glyph media/agents.svg: the glyph in white on a rounded square of the
// gallery banner's colour. Run after changing either: `node scripts/render-icon.mjs`.
// Draws with the Chromium the UI tests use (scripts/provision-vscode.sh), through playwright-core.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const size = 128;
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const background = manifest.galleryBanner.color;

const glyph = readFileSync(join(root, 'media', 'agents.svg'), 'utf8');
const inner = /<svg[^>]*>([\s\S]*)<\/svg>/.exec(glyph)?.[1];
if (!inner) {
  throw new Error('media/agents.svg has no <svg> element');
}
// The glyph's 24×24 box scaled by 4 and centred: a 16 px margin all round.
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}">
  <rect width="${size}" height="${size}" rx="24" fill="${background}"/>
  <g transform="translate(16 16) scale(4)" fill="none" stroke="#ffffff" stroke-width="1.6"
     stroke-linecap="round" stroke-linejoin="round">${inner}</g>
</svg>`;

const paths = JSON.parse(
  execFileSync('bash', [join(root, 'scripts', 'provision-vscode.sh'), '--json'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }),
);
const browser = await chromium.launch({
  executablePath: paths.chromium,
  args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  const out = join(root, 'media', 'icon.png');
  await page.locator('svg').screenshot({ path: out, omitBackground: true });
  console.log(`[icon] wrote ${out}`);
} finally {
  await browser.close();
}
