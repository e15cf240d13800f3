import * as assert from 'node:assert/strict';
import type { AgentRecord } from '../../src/core/agent';
import { type BarSegment, type TimelineBar, barsFromAgents, computeFigures } from '../../src/core/timeline/timeline';
import { contentSecurityPolicy, renderHtml } from '../../src/ui/timeline/timelineHtml';

const s = 1000;

/** A bar queued at `queuedAt`, running from `start` for `runMs`, then done. */
function bar(
  id: string,
  start: number,
  runMs: number,
  extra: { queuedAt?: number; dependsOn?: string[] } = {},
): TimelineBar {
  const segments: BarSegment[] = [];
  if (extra.queuedAt !== undefined && extra.queuedAt < start) {
    segments.push({ state: 'queued', start: extra.queuedAt, end: start });
  }
  segments.push(
    { state: 'running', start, end: start + runMs },
    { state: 'done', start: start + runMs, end: start + runMs },
  );
  return { id, title: `Task ${id}`, segments, dependsOn: extra.dependsOn };
}

function agent(id: string, extra: Partial<AgentRecord>): AgentRecord {
  return {
    id,
    title: id,
    prompt: id,
    profile: 'demo',
    mode: 'headless',
    isolation: 'worktree',
    status: 'queued',
    repoRoot: '/r',
    cwd: `/r.worktrees/${id}`,
    baseSha: 'b',
    createdAt: 0,
    changedFiles: [],
    ...extra,
  };
}

describe('timeline figures', () => {
  it('4 independent `sleep 5` tasks at maxParallel 4: speedup 4, no idle slot', () => {
    const bars = ['a', 'b', 'c', 'd'].map((id) => bar(id, 0, 5 * s));
    const f = computeFigures(bars, 60 * s, 4);
    assert.equal(f.wallMs, 5 * s);
    assert.equal(f.sumMs, 20 * s);
    assert.equal(f.speedup, 4);
    assert.ok(f.speedup > 2);
    assert.equal(f.idleSlotMs, 0);
    assert.equal(f.peakConcurrency, 4);
    assert.equal(f.criticalPathMs, 5 * s);
    assert.equal(f.criticalPath.length, 1);
    assert.equal(f.live, false);
  });

  it('keeps a speedup above 2 when the four start a little apart and are queued first', () => {
    const bars = [0, 300, 700, 1200].map((at, i) => bar(String(i), at + 400, 5 * s, { queuedAt: at }));
    const f = computeFigures(bars, 60 * s, 4);
    assert.equal(f.wallMs, 6600);
    assert.ok(f.speedup > 2, `speedup ${f.speedup}`);
  });

  it('the same four one after another: speedup 1, the whole chain is critical', () => {
    const bars = ['a', 'b', 'c', 'd'].map((id, i) =>
      bar(id, i * 5 * s, 5 * s, { dependsOn: i > 0 ? [String.fromCharCode(96 + i)] : [] }),
    );
    const f = computeFigures(bars, 60 * s);
    assert.equal(f.wallMs, 20 * s);
    assert.equal(f.sumMs, 20 * s);
    assert.equal(f.speedup, 1);
    assert.equal(f.peakConcurrency, 1);
    assert.equal(f.slots, 1);
    assert.equal(f.slotsFrom, 'peak');
    assert.equal(f.idleSlotMs, 0);
    assert.deepEqual(f.criticalPath, ['a', 'b', 'c', 'd']);
    assert.equal(f.criticalPathMs, 20 * s);
  });

  it('counts idle slots against maxParallel when fewer tasks ran', () => {
    const f = computeFigures([bar('a', 0, 5 * s), bar('b', 0, 3 * s)], 10 * s, 4);
    assert.equal(f.idleSlotMs, 4 * 5 * s - 8 * s);
    assert.equal(f.slots, 4);
    assert.equal(f.slotsFrom, 'maxParallel');
    assert.equal(f.peakConcurrency, 2);
  });

  it('finds the critical path of a diamond by running durations, not by count', () => {
    // a (2 s) → b (10 s) → d (1 s); a → c (3 s) → d
    const bars = [
      bar('a', 0, 2 * s),
      bar('b', 2 * s, 10 * s, { dependsOn: ['a'] }),
      bar('c', 2 * s, 3 * s, { dependsOn: ['a'] }),
      bar('d', 12 * s, 1 * s, { dependsOn: ['b', 'c'] }),
    ];
    const f = computeFigures(bars, 60 * s);
    assert.deepEqual(f.criticalPath, ['a', 'b', 'd']);
    assert.equal(f.criticalPathMs, 13 * s);
    assert.equal(f.wallMs, 13 * s);
    assert.equal(f.sumMs, 16 * s);
    assert.equal(f.peakConcurrency, 2);
  });

  it('ignores unknown dependencies and survives a cycle', () => {
    const bars = [bar('a', 0, 2 * s, { dependsOn: ['b', 'ghost'] }), bar('b', 2 * s, 3 * s, { dependsOn: ['a'] })];
    const f = computeFigures(bars, 60 * s);
    assert.equal(f.criticalPathMs, 5 * s);
    assert.equal(f.criticalPath.length, 2);
  });

  it('lets open segments run until now', () => {
    const bars: TimelineBar[] = [
      { id: 'a', title: 'a', segments: [{ state: 'running', start: 0 }] },
      {
        id: 'b',
        title: 'b',
        segments: [
          { state: 'queued', start: 0, end: 2 * s },
          { state: 'running', start: 2 * s },
        ],
      },
    ];
    const f = computeFigures(bars, 6 * s);
    assert.equal(f.live, true);
    assert.equal(f.wallMs, 6 * s);
    assert.equal(f.sumMs, 10 * s);
    assert.equal(f.speedup, 10 / 6);
    assert.equal(computeFigures(bars, 8 * s).sumMs, 14 * s);
  });

  it('leaves stretches with nothing going on out of the wall time', () => {
    const f = computeFigures([bar('a', 0, 5 * s), bar('b', 3600 * s, 5 * s)], 7200 * s);
    assert.equal(f.wallMs, 10 * s);
    assert.equal(f.spanMs, 3605 * s);
    assert.equal(f.speedup, 1);
  });

  it('counts waiting for input as wall time and as a slot, not as agent time', () => {
    const bars: TimelineBar[] = [
      {
        id: 'a',
        title: 'a',
        segments: [
          { state: 'running', start: 0, end: 2 * s },
          { state: 'waiting-for-input', start: 2 * s, end: 5 * s },
          { state: 'running', start: 5 * s, end: 6 * s },
        ],
      },
    ];
    const f = computeFigures(bars, 10 * s);
    assert.equal(f.wallMs, 6 * s);
    assert.equal(f.sumMs, 3 * s);
    assert.equal(f.peakConcurrency, 1);
    assert.equal(f.idleSlotMs, 3 * s);
  });

  it('gives zeros and no division by zero for no bars', () => {
    const f = computeFigures([], 5 * s);
    assert.deepEqual(
      [f.wallMs, f.spanMs, f.sumMs, f.speedup, f.criticalPathMs, f.idleSlotMs, f.peakConcurrency, f.live],
      [0, 0, 0, 0, 0, 0, 0, false],
    );
    assert.deepEqual(f.criticalPath, []);
  });
});

describe('bars from agents', () => {
  it('maps queued, running and finished agents to segments and end markers', () => {
    const now = 20 * s;
    const [queued, running, succeeded, failed, neverStarted, merged] = barsFromAgents(
      [
        agent('q', { status: 'queued', createdAt: 1 * s }),
        agent('r', { status: 'running', createdAt: 1 * s, startedAt: 3 * s }),
        agent('ok', { status: 'succeeded', createdAt: 0, startedAt: 1 * s, endedAt: 6 * s }),
        agent('ko', { status: 'failed', createdAt: 0, startedAt: 0, endedAt: 2 * s }),
        agent('x', { status: 'failed', createdAt: 0, endedAt: 1 * s }),
        agent('m', { status: 'merged', createdAt: 0, startedAt: 0, endedAt: 4 * s }),
      ],
      now,
    );
    assert.deepEqual(queued.segments, [{ state: 'queued', start: 1 * s, end: undefined }]);
    assert.deepEqual(running.segments, [
      { state: 'queued', start: 1 * s, end: 3 * s },
      { state: 'running', start: 3 * s, end: undefined },
    ]);
    assert.deepEqual(succeeded.segments, [
      { state: 'queued', start: 0, end: 1 * s },
      { state: 'running', start: 1 * s, end: 6 * s },
      { state: 'done', start: 6 * s, end: 6 * s },
    ]);
    assert.deepEqual(failed.segments, [
      { state: 'running', start: 0, end: 2 * s },
      { state: 'failed', start: 2 * s, end: 2 * s },
    ]);
    assert.deepEqual(neverStarted.segments, [
      { state: 'queued', start: 0, end: 1 * s },
      { state: 'failed', start: 1 * s, end: 1 * s },
    ]);
    assert.equal(merged.segments.at(-1)?.state, 'done');
    assert.equal(running.title, 'r');
    const f = computeFigures([queued, running, succeeded], now);
    assert.equal(f.sumMs, 17 * s + 5 * s);
  });

  it('maps stopped, interrupted and discarded agents', () => {
    const bars = barsFromAgents(
      [
        agent('s', { status: 'stopped', startedAt: 0, endedAt: 1 * s }),
        agent('i', { status: 'interrupted', startedAt: 0, endedAt: 1 * s }),
        agent('d', { status: 'discarded', statusBeforeDiscard: 'failed', startedAt: 0, endedAt: 1 * s }),
      ],
      5 * s,
    );
    assert.deepEqual(
      bars.map((b) => b.segments.at(-1)?.state),
      ['stopped', 'stopped', 'failed'],
    );
  });

  it('splits a waiting agent at the time it started waiting, when known', () => {
    const record = agent('w', { status: 'waiting-for-input', createdAt: 0, startedAt: 1 * s });
    const [known] = barsFromAgents([record], 10 * s, { waitingSince: new Map([['w', 4 * s]]) });
    assert.deepEqual(known.segments, [
      { state: 'queued', start: 0, end: 1 * s },
      { state: 'running', start: 1 * s, end: 4 * s },
      { state: 'waiting-for-input', start: 4 * s },
    ]);
    const [unknown] = barsFromAgents([record], 10 * s);
    assert.deepEqual(unknown.segments.slice(1), [
      { state: 'running', start: 1 * s, end: 10 * s },
      { state: 'waiting-for-input', start: 10 * s },
    ]);
  });

  it('takes dependencies from the options', () => {
    const [a, b] = barsFromAgents([agent('a', {}), agent('b', {})], 0, { dependsOn: new Map([['b', ['a']]]) });
    assert.equal(a.dependsOn, undefined);
    assert.deepEqual(b.dependsOn, ['a']);
  });
});

describe('timeline page', () => {
  const nonce = 'r4nd0mN0nce+/==';
  const script = 'https://file+.vscode-resource.vscode-cdn.net/ext/media/timeline.js';
  const style = 'https://file+.vscode-resource.vscode-cdn.net/ext/media/timeline.css';
  const cspSource = 'https://*.vscode-cdn.net';

  function cspOf(html: string): string {
    const match = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
    assert.ok(match, 'a CSP meta tag');
    return match[1].replace(/&#39;/g, "'");
  }

  it('loads its one script with the nonce under a strict policy', () => {
    const html = renderHtml(cspSource, nonce, script, style, 'Agents <Timeline>');
    assert.ok(html.includes(`<script nonce="${nonce}" src="${script}"></script>`));
    assert.equal(html.match(/<script/g)?.length, 1);
    const csp = cspOf(html);
    assert.equal(csp, contentSecurityPolicy(cspSource, nonce));
    assert.ok(csp.includes("default-src 'none'"));
    assert.ok(csp.includes(`script-src 'nonce-${nonce}'`));
    assert.ok(!csp.includes('unsafe-inline'));
    assert.ok(!csp.includes('unsafe-eval'));
    assert.ok(!/https?:/.test(csp.split(cspSource).join('')), 'no URL in the policy but the webview origin');
    assert.ok(!/https?:/.test(cspOf(renderHtml('vscode-webview-resource:', nonce, script, style, 't'))));
  });

  it('refers to no remote resource and has no inline code or style', () => {
    const html = renderHtml(cspSource, nonce, script, style, 'Agents <Timeline>', { empty: 'Nothing "yet" <here>' });
    const urls =
      html
        .split(cspSource)
        .join('')
        .match(/https?:\/\/[^"'\s]+/g) ?? [];
    assert.deepEqual([...new Set(urls)].sort(), [script, style].sort());
    assert.ok(!/\son[a-z]+=/i.test(html), 'no inline event handler');
    assert.ok(!/\sstyle=/i.test(html), 'no style attribute');
    assert.ok(!html.includes('<style'), 'no style element');
    assert.ok(html.includes('Agents &#60;Timeline&#62;'));
    assert.ok(!html.includes('<here>'));
  });
});
