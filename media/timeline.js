// The Agents Timeline page. Plain browser script under a strict Content-Security-Policy: no
// imports, no eval, no inline handlers or style attributes (positions go through element.style,
// which the policy allows). The extension posts { type: 'update', bars, figures, now }; the
// definitions of the figures live in src/core/timeline.ts and are repeated in the page's legend.
(function () {
  'use strict';

  const vscode = acquireVsCodeApi();

  /** English fallbacks; the extension sends the localized ones in body[data-strings]. */
  const defaults = {
    queued: 'Queued',
    running: 'Running',
    waitingForInput: 'Waiting for input',
    done: 'Done',
    failed: 'Failed',
    stopped: 'Stopped',
    wall: 'Wall',
    agentTime: 'Agent time',
    speedup: 'Speedup',
    criticalPath: 'Critical path',
    idle: 'Idle',
    wallHelp:
      'Time during which at least one agent was queued, running or waiting; stretches with nothing going on are left out.',
    agentTimeHelp: "Sum of every agent's running time. Waiting for input is your time, not the agent's.",
    speedupHelp: 'Agent time ÷ wall time: how many agents worked at once, on average.',
    criticalPathHelp:
      "The longest chain of running times along the tasks' dependencies (without dependencies, the longest agent): no number of slots finishes faster.",
    idleHelp: 'Slots × wall time − agent time: slot time in which no agent ran.',
    slotsMaxParallel: '{0} slots (maxParallel)',
    slotsPeak: '{0} slots (the most agents at once)',
    definitions: 'How these figures are measured',
    empty: 'No agents yet. Dispatch an agent or run a plan: each appears here as a bar over time.',
    chart: 'Agents over time',
    now: 'now',
    seconds: '{0} s',
    minutes: '{0} min {1} s',
    hours: '{0} h {1} min',
    times: '{0}×',
    segment: '{0} from {1} to {2} ({3})',
    segmentOpen: '{0} since {1} ({2} so far)',
    marker: '{0} at {1}',
    barSummary: '{0}: {1}',
  };
  /** @type {Record<string, string>} */
  const strings = Object.assign({}, defaults, parseStrings(document.body.dataset.strings));

  /** @type {Record<string, string>} */
  const stateKeys = {
    queued: 'queued',
    running: 'running',
    'waiting-for-input': 'waitingForInput',
    done: 'done',
    failed: 'failed',
    stopped: 'stopped',
  };
  const states = Object.keys(stateKeys);
  const markerStates = new Set(['done', 'failed', 'stopped']);

  const oneDecimal = new Intl.NumberFormat(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const whole = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

  /** @param {string | undefined} json */
  function parseStrings(json) {
    try {
      const value = JSON.parse(json || '{}');
      return value && typeof value === 'object' ? value : {};
    } catch {
      return {};
    }
  }

  /** @param {string} key @param {...(string | number)} args */
  function t(key, ...args) {
    return (strings[key] || key).replace(/\{(\d+)\}/g, (m, i) =>
      args[Number(i)] !== undefined ? String(args[Number(i)]) : m,
    );
  }

  /** 12.3 s · 4 min 05 s · 1 h 05 min */
  function formatDuration(ms) {
    const seconds = Math.max(0, ms) / 1000;
    if (seconds < 60) {
      return t('seconds', oneDecimal.format(seconds));
    }
    const total = Math.floor(seconds);
    if (total < 3600) {
      return t('minutes', whole.format(Math.floor(total / 60)), String(total % 60).padStart(2, '0'));
    }
    return t('hours', whole.format(Math.floor(total / 3600)), String(Math.floor((total % 3600) / 60)).padStart(2, '0'));
  }

  /** An axis label: whole seconds, minutes or hours from the start. */
  function formatOffset(ms) {
    const total = Math.round(ms / 1000);
    if (total < 60) {
      return t('seconds', whole.format(total));
    }
    if (total < 3600) {
      return t('minutes', whole.format(Math.floor(total / 60)), String(total % 60).padStart(2, '0'));
    }
    return t('hours', whole.format(Math.floor(total / 3600)), String(Math.floor((total % 3600) / 60)).padStart(2, '0'));
  }

  /** @param {string} tag @param {string} [className] @param {string} [text] @returns {HTMLElement} */
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined) {
      node.textContent = text;
    }
    return node;
  }

  function stateLabel(state) {
    return t(stateKeys[state] || state);
  }

  function renderLegend() {
    const legend = /** @type {HTMLElement} */ (document.getElementById('legend'));
    for (const state of states) {
      const item = el('span', 'legend-item');
      const swatch = el('span', `swatch state-${state}${markerStates.has(state) ? ' marker' : ''}`);
      swatch.setAttribute('aria-hidden', 'true');
      item.append(swatch, el('span', undefined, stateLabel(state)));
      legend.append(item);
    }
    const details = /** @type {HTMLElement} */ (document.getElementById('definitions'));
    details.append(el('summary', undefined, t('definitions')));
    const list = el('dl');
    for (const [term, help] of [
      ['wall', 'wallHelp'],
      ['agentTime', 'agentTimeHelp'],
      ['speedup', 'speedupHelp'],
      ['criticalPath', 'criticalPathHelp'],
      ['idle', 'idleHelp'],
    ]) {
      list.append(el('dt', undefined, t(term)), el('dd', undefined, t(help)));
    }
    details.append(list);
    const empty = /** @type {HTMLElement} */ (document.getElementById('empty'));
    empty.textContent = t('empty');
  }

  function renderFigures(bars, figures) {
    const strip = /** @type {HTMLElement} */ (document.getElementById('figures'));
    strip.replaceChildren();
    if (bars.length === 0) {
      return;
    }
    const titles = new Map(bars.map((b) => [b.id, b.title]));
    const path = figures.criticalPath.map((id) => titles.get(id) || id).join(' → ');
    const slots = t(figures.slotsFrom === 'maxParallel' ? 'slotsMaxParallel' : 'slotsPeak', figures.slots);
    const items = [
      [t('wall'), formatDuration(figures.wallMs), t('wallHelp')],
      [t('agentTime'), formatDuration(figures.sumMs), t('agentTimeHelp')],
      [t('speedup'), t('times', oneDecimal.format(figures.speedup)), t('speedupHelp')],
      [
        t('criticalPath'),
        path ? `${formatDuration(figures.criticalPathMs)} (${path})` : formatDuration(figures.criticalPathMs),
        t('criticalPathHelp'),
      ],
      [t('idle'), formatDuration(figures.idleSlotMs), `${t('idleHelp')} ${slots}`],
    ];
    items.forEach(([label, value, help], i) => {
      if (i > 0) {
        const dot = el('span', 'separator', ' · ');
        dot.setAttribute('aria-hidden', 'true');
        strip.append(dot);
      }
      const item = el('span', 'figure');
      item.title = help;
      item.append(el('span', 'figure-label', `${label} `), el('span', 'figure-value', value));
      strip.append(item);
    });
  }

  /** Tick spacing that gives at most about eight labels. */
  function tickStep(spanMs) {
    const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800, 86400];
    const step = steps.find((s) => spanMs / (s * 1000) <= 8);
    return (step || steps[steps.length - 1]) * 1000;
  }

  function renderChart(bars, figures, now) {
    const chart = /** @type {HTMLElement} */ (document.getElementById('chart'));
    const empty = /** @type {HTMLElement} */ (document.getElementById('empty'));
    const focusedId = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.id : undefined;
    chart.replaceChildren();
    empty.hidden = bars.length > 0;
    if (bars.length === 0) {
      return;
    }
    const segments = bars.flatMap((b) => b.segments);
    const start = Math.min(...segments.map((s) => s.start));
    const end = Math.max(...segments.map((s) => (s.end === undefined ? now : s.end)), figures.live ? now : start);
    const span = Math.max(end - start, 1000);
    const x = (time) => `${(((time - start) / span) * 100).toFixed(3)}%`;
    const width = (ms) => `${((Math.max(0, ms) / span) * 100).toFixed(3)}%`;

    chart.append(renderAxis(span, x, start, figures.live ? now : undefined));
    const list = el('div', 'rows');
    list.setAttribute('role', 'list');
    list.setAttribute('aria-label', t('chart'));
    for (const bar of bars) {
      list.append(renderRow(bar, start, now, { x, width }, figures.live ? now : undefined));
    }
    chart.append(list);
    if (focusedId) {
      const again = chart.querySelector(`[data-id="${CSS.escape(focusedId)}"]`);
      if (again instanceof HTMLElement) {
        again.focus();
      }
    }
  }

  function renderAxis(span, x, start, liveNow) {
    const axis = el('div', 'row axis');
    axis.setAttribute('aria-hidden', 'true');
    axis.append(el('div', 'label'));
    const track = el('div', 'track');
    const step = tickStep(span);
    for (let offset = 0; offset <= span; offset += step) {
      const tick = el('span', 'tick', formatOffset(offset));
      tick.style.left = x(start + offset);
      track.append(tick);
    }
    if (liveNow !== undefined) {
      const now = el('span', 'tick now-label', t('now'));
      now.style.left = x(liveNow);
      track.append(now);
    }
    axis.append(track);
    return axis;
  }

  function renderRow(bar, start, now, scale, liveNow) {
    const x = scale.x;
    const row = el('div', 'row');
    row.setAttribute('role', 'listitem');
    row.tabIndex = 0;
    row.dataset.id = bar.id;
    const descriptions = [];
    const label = el('div', 'label', bar.title);
    label.title = bar.title;
    const track = el('div', 'track');
    for (const segment of bar.segments) {
      const name = stateLabel(segment.state);
      const from = formatDuration(segment.start - start);
      const block = el('span', `segment state-${segment.state}`);
      block.style.left = x(segment.start);
      if (markerStates.has(segment.state)) {
        block.classList.add('marker');
        block.title = t('marker', name, from);
        descriptions.push(block.title);
      } else {
        const endTime = segment.end === undefined ? now : segment.end;
        const length = formatDuration(endTime - segment.start);
        block.style.width = scale.width(endTime - segment.start);
        block.title =
          segment.end === undefined
            ? t('segmentOpen', name, from, length)
            : t('segment', name, from, formatDuration(endTime - start), length);
        descriptions.push(`${name} ${length}`);
      }
      block.setAttribute('aria-hidden', 'true');
      track.append(block);
    }
    if (liveNow !== undefined) {
      const line = el('span', 'now-line');
      line.style.left = x(liveNow);
      line.setAttribute('aria-hidden', 'true');
      track.append(line);
    }
    row.setAttribute('aria-label', t('barSummary', bar.title, descriptions.join(', ')));
    row.title = row.getAttribute('aria-label') || '';
    row.append(label, track);
    return row;
  }

  function onUpdate(message) {
    const bars = Array.isArray(message.bars) ? message.bars : [];
    renderFigures(bars, message.figures);
    renderChart(bars, message.figures, message.now);
  }

  renderLegend();
  window.addEventListener('message', (event) => {
    const message = event.data;
    if (message && message.type === 'update') {
      onUpdate(message);
    }
  });
  vscode.postMessage({ type: 'ready' });
})();
