// Quota pauses: which CLI output says a run stopped on a rate or usage limit, when the limit resets,
// the backoff when no reset time is given, and the queue's per-provider caps.
import * as assert from 'node:assert/strict';
import type { AgentRecord, AgentStatus } from '../../src/core/agent';
import { detectQuotaStop, providerCaps, providerOf } from '../../src/core/clis';
import { dueToStart, mustQueue, queueReason } from '../../src/core/agents/queueOrder';
import { backoffMs, quotaEnd, quotaPause, resetMarginMs, maxQuotaPauses } from '../../src/core/agents/quotaPause';

// 2026-03-10 14:07:00 UTC, a Tuesday.
const now = Date.UTC(2026, 2, 10, 14, 7, 0);

describe('quota signals in agent CLI output', () => {
  it('Claude Code: the usage-limit result with its epoch reset time', () => {
    const out = [
      '{"type":"system","subtype":"init","cwd":"/wt"}',
      '{"type":"result","subtype":"success","is_error":true,"result":"Claude AI usage limit reached|1773162000"}',
    ].join('\n');
    const signal = detectQuotaStop(out, now);
    assert.equal(signal?.resetAt, 1773162000 * 1000);
    assert.match(signal!.message, /usage limit reached/);
  });

  it('Claude Code: "Your limit will reset at 3pm (America/New_York)" is the next 3 pm there', () => {
    const signal = detectQuotaStop('Claude usage limit reached. Your limit will reset at 3pm (America/New_York).', now);
    // March 10th 2026 is daylight-saving time in New York (UTC-4): 15:00 there is 19:00 UTC.
    assert.equal(signal?.resetAt, Date.UTC(2026, 2, 10, 19, 0));
  });

  it('Claude Code: "You\'ve hit your session limit · resets 11:20am (Europe/Budapest)" past today → tomorrow', () => {
    const signal = detectQuotaStop("You've hit your session limit · resets 11:20am (Europe/Budapest)", now);
    // 11:20 in Budapest (UTC+1 in March) is 10:20 UTC, already past at 14:07 UTC: tomorrow's.
    assert.equal(signal?.resetAt, Date.UTC(2026, 2, 11, 10, 20));
  });

  it('Claude Code: a 429 rate_limit_error without a time is a limit with no reset (backoff)', () => {
    const out =
      'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your account\'s rate limit. Please try again later."}}';
    const signal = detectQuotaStop(out, now);
    assert.ok(signal);
    assert.equal(signal.resetAt, undefined);
  });

  it('Codex: "try again in 2 days 17 hours 14 minutes" and "try again at Jul 5th, 2026 8:19 PM"', () => {
    const rel = detectQuotaStop(
      "■ You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 days 17 hours 14 minutes.",
      now,
    );
    assert.equal(rel?.resetAt, now + ((2 * 24 + 17) * 60 + 14) * 60_000);
    const abs = detectQuotaStop(
      "You've hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again at Jul 5th, 2026 8:19 PM.",
      now,
    );
    assert.equal(abs?.resetAt, new Date(2026, 6, 5, 20, 19).getTime(), 'the machine time zone when none is named');
  });

  it('Codex JSON: usage_limit_reached with resets_in_seconds', () => {
    const out =
      '{"type":"error","message":"{\\"error\\":{\\"type\\":\\"usage_limit_reached\\",\\"message\\":\\"The usage limit has been reached\\",\\"resets_in_seconds\\":602705}}"}';
    assert.equal(detectQuotaStop(out, now)?.resetAt, now + 602_705_000);
  });

  it('Gemini: 429 RESOURCE_EXHAUSTED (no time), and "Please retry in 23.5s"', () => {
    const exhausted = [
      '[API Error: {"error":{"message":"{\\n  \\"error\\": {\\n    \\"code\\": 429,',
      '\\"message\\": \\"Resource has been exhausted (e.g. check quota).\\",\\"status\\": \\"RESOURCE_EXHAUSTED\\"',
      '}}","code":429,"status":"Too Many Requests"}}]',
    ].join('\n');
    const a = detectQuotaStop(exhausted, now);
    assert.ok(a);
    assert.equal(a.resetAt, undefined);
    const b = detectQuotaStop(
      "Quota exceeded for quota metric 'Generate Content API requests per minute'. Please retry in 23.5s.",
      now,
    );
    assert.equal(b?.resetAt, now + 23_500);
  });

  it('the demo agent: "You\'ve hit your usage limit · resets in 2s"', () => {
    assert.equal(detectQuotaStop("You've hit your usage limit · resets in 2s", now)?.resetAt, now + 2000);
  });

  it('ordinary failures are not limits', () => {
    for (const out of [
      'Error: ENOENT: no such file or directory',
      'Unable to connect to API (ECONNREFUSED)',
      '{"type":"result","is_error":true,"api_error_status":401,"result":"Invalid API key"}',
      'added a rate limiter to src/server.ts; tests: 4 failed',
      'Authentication failed with provider (HTTP 401)',
    ]) {
      assert.equal(detectQuotaStop(out, now), undefined, out);
    }
  });
});

describe('quota pause and backoff', () => {
  it('backs off 1, 2, 4, 8, 16, then 30 minutes (capped)', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 50].map((n) => backoffMs(n) / 60_000),
      [1, 2, 4, 8, 16, 30, 30, 30],
    );
  });

  it('resumes at the given reset plus a margin; a reset already past waits at least the last backoff', () => {
    const first = quotaPause({ resetAt: now + 5000, message: 'm' }, 'claude', undefined, now);
    assert.deepEqual([first.resumeAt, first.attempt, first.resetGiven], [now + 5000 + resetMarginMs, 1, true]);
    const again = quotaPause({ resetAt: now - 1000, message: 'm' }, 'claude', first, now);
    assert.deepEqual([again.resumeAt, again.attempt], [now + backoffMs(1), 2]);
    const none = quotaPause({ message: 'm' }, 'gemini', again, now);
    assert.deepEqual([none.resumeAt, none.attempt, none.resetGiven], [now + backoffMs(3), 3, false]);
  });

  it('a run that ends otherwise clears the count; too many pauses in a row fail the agent', () => {
    const record = { provider: 'claude', profile: 'claude' } as AgentRecord;
    assert.deepEqual(quotaEnd(record, { status: 'succeeded' }, now), {
      status: 'succeeded',
      quota: undefined,
      error: undefined,
    });
    const last = quotaPause({ message: 'm' }, 'claude', undefined, now);
    const worn = { ...record, quota: { ...last, attempt: maxQuotaPauses } };
    const end = quotaEnd(worn, { status: 'paused', quota: { message: 'limit' } }, now);
    assert.equal(end.status, 'failed');
    assert.match(end.error!, /^agentQuotaGaveUp /);
  });
});

describe('providers and their caps (providerLimits)', () => {
  it('a profile counts against the CLI it runs, or its own provider', () => {
    assert.equal(providerOf({ command: 'claude' }), 'claude');
    assert.equal(providerOf({ command: '/usr/local/bin/cursor-agent' }), 'cursor');
    assert.equal(providerOf({ command: 'C:\\tools\\codex.cmd' }), 'codex');
    assert.equal(providerOf({ command: '${demoAgent}' }), 'demo');
    assert.equal(providerOf({ command: 'my-wrapper', provider: 'claude' }), 'claude');
    assert.equal(providerOf({ command: 'my-wrapper' }), 'my-wrapper');
    assert.deepEqual([...providerCaps({ claude: 4, codex: 0, gemini: -1, x: 1.5, y: '2' })], [['claude', 4]]);
    assert.equal(providerCaps([3]).size, 0);
  });

  const rec = (id: string, status: AgentStatus, createdAt: number, provider: string, repoRoot = '/r') => ({
    id,
    status,
    createdAt,
    repoRoot,
    provider,
    profile: provider,
  });
  const caps = { caps: new Map([['claude', 2]]) };

  it('a provider at its cap holds back its own queued agents, not those of others', () => {
    const records = [
      rec('c1', 'running', 1, 'claude'),
      rec('c2', 'running', 2, 'claude', '/other'),
      rec('c3', 'queued', 3, 'claude'),
      rec('x1', 'queued', 4, 'codex'),
      rec('c4', 'queued', 5, 'claude'),
    ];
    assert.deepEqual(
      dueToStart(records, '/r', 0, 0, caps).map((r) => r.id),
      ['x1'],
    );
    assert.deepEqual(
      dueToStart(records, '/r', 3, 0, caps).map((r) => r.id),
      ['x1'],
      'the global cap leaves room for two; claude has none',
    );
    assert.equal(mustQueue(records, '/r', 0, 0, caps, 'claude'), true);
    assert.equal(mustQueue(records, '/r', 0, 0, caps, 'gemini'), false);
    assert.equal(queueReason(records, 'claude', caps), 'provider');
    // Starts under way count against the provider too.
    const starting = { caps: caps.caps, starting: new Map([['claude', 1]]) };
    assert.equal(mustQueue([rec('c1', 'running', 1, 'claude')], '/r', 0, 0, starting, 'claude'), true);
  });

  it('an agent paused on its provider holds back that provider (no cap needed)', () => {
    const records = [rec('p', 'paused', 1, 'claude'), rec('c', 'queued', 2, 'claude'), rec('g', 'queued', 3, 'gemini')];
    assert.deepEqual(
      dueToStart(records, '/r', 0).map((r) => r.id),
      ['g'],
    );
    assert.equal(mustQueue(records, '/r', 0, 0, undefined, 'claude'), true);
    assert.equal(queueReason(records, 'claude', { caps: new Map() }), 'quota');
  });
});
