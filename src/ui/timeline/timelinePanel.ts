import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import { computeFigures, type TimelineBar, type TimelineFigures } from '../../core/timeline';
import { type TimelineStrings, renderHtml } from './timelineHtml';

export { renderHtml } from './timelineHtml';

/** What the timeline shows: the agents of the window, or one plan run's tasks. */
export interface TimelineSource {
  bars(): readonly TimelineBar[];
  /** The run's maxParallel; without it the idle figure counts the peak concurrency observed. */
  slots?(): number | undefined;
  readonly onDidChange: vscode.Event<unknown>;
}

/** The one message the page receives. */
export interface TimelineUpdate {
  readonly type: 'update';
  readonly bars: readonly TimelineBar[];
  readonly figures: TimelineFigures;
  readonly now: number;
}

const throttleMs = 250;
const tickMs = 1000;

/** The "Agents Timeline" webview: one per window, redrawn on changes and every second while anything runs. */
export class TimelinePanel implements vscode.Disposable {
  static readonly viewType = 'parallelAgents.timeline';
  private static current: TimelinePanel | undefined;

  private sourceSubscription: vscode.Disposable | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];
  private ready = false;
  private lastPost = 0;
  private pending: ReturnType<typeof setTimeout> | undefined;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private disposed = false;

  /** Opens the panel, or reveals it showing `source` instead of what it showed. */
  static show(extensionUri: vscode.Uri, source: TimelineSource): TimelinePanel {
    const existing = TimelinePanel.current;
    if (existing) {
      existing.setSource(source);
      existing.panel.reveal();
      return existing;
    }
    const media = vscode.Uri.joinPath(extensionUri, 'media');
    const panel = vscode.window.createWebviewPanel(
      TimelinePanel.viewType,
      vscode.l10n.t('Agents Timeline'),
      vscode.ViewColumn.Active,
      {
        enableScripts: true,
        localResourceRoots: [media],
        retainContextWhenHidden: false,
      },
    );
    TimelinePanel.current = new TimelinePanel(panel, media, source);
    return TimelinePanel.current;
  }

  /** The open panel, if any. */
  static get instance(): TimelinePanel | undefined {
    return TimelinePanel.current;
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    media: vscode.Uri,
    private source: TimelineSource,
  ) {
    const webview = panel.webview;
    webview.html = renderHtml(
      webview.cspSource,
      randomBytes(16).toString('base64'),
      webview.asWebviewUri(vscode.Uri.joinPath(media, 'timeline.js')).toString(),
      webview.asWebviewUri(vscode.Uri.joinPath(media, 'timeline.css')).toString(),
      vscode.l10n.t('Agents Timeline'),
      timelineStrings(),
    );
    this.subscriptions.push(
      webview.onDidReceiveMessage((message: unknown) => this.onMessage(message)),
      // A hidden webview is torn down (no retained context); it says "ready" again when shown.
      panel.onDidChangeViewState(() => {
        if (!panel.visible) {
          this.ready = false;
          this.setTicking(false);
        }
      }),
      panel.onDidDispose(() => this.dispose()),
    );
    this.setSource(source);
  }

  private setSource(source: TimelineSource): void {
    this.source = source;
    this.sourceSubscription?.dispose();
    this.sourceSubscription = source.onDidChange(() => this.schedule());
    this.schedule();
  }

  private onMessage(message: unknown): void {
    if (typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'ready') {
      this.ready = true;
      this.post();
    }
  }

  /** At most one post per throttleMs, however often the source changes. */
  private schedule(): void {
    if (this.pending !== undefined || this.disposed) {
      return;
    }
    const wait = Math.max(0, this.lastPost + throttleMs - Date.now());
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.post();
    }, wait);
  }

  private post(): void {
    if (!this.ready || this.disposed) {
      return;
    }
    const now = Date.now();
    const bars = this.source.bars();
    const figures = computeFigures(bars, now, this.source.slots?.());
    this.lastPost = now;
    const update: TimelineUpdate = { type: 'update', bars, figures, now };
    void this.panel.webview.postMessage(update);
    this.setTicking(figures.live);
  }

  private setTicking(on: boolean): void {
    if (on && this.ticker === undefined) {
      this.ticker = setInterval(() => this.post(), tickMs);
    } else if (!on && this.ticker !== undefined) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    if (TimelinePanel.current === this) {
      TimelinePanel.current = undefined;
    }
    clearTimeout(this.pending);
    this.setTicking(false);
    this.sourceSubscription?.dispose();
    this.subscriptions.forEach((s) => s.dispose());
    this.panel.dispose();
  }
}

/** The page's texts; media/timeline.js holds the same English as its fallback. */
function timelineStrings(): TimelineStrings {
  return {
    queued: vscode.l10n.t('Queued'),
    running: vscode.l10n.t('Running'),
    waitingForInput: vscode.l10n.t('Waiting for input'),
    done: vscode.l10n.t('Done'),
    failed: vscode.l10n.t('Failed'),
    stopped: vscode.l10n.t('Stopped'),
    wall: vscode.l10n.t('Wall'),
    agentTime: vscode.l10n.t('Agent time'),
    speedup: vscode.l10n.t('Speedup'),
    criticalPath: vscode.l10n.t('Critical path'),
    idle: vscode.l10n.t('Idle'),
    wallHelp: vscode.l10n.t(
      'Time during which at least one agent was queued, running or waiting; stretches with nothing going on are left out.',
    ),
    agentTimeHelp: vscode.l10n.t("Sum of every agent's running time. Waiting for input is your time, not the agent's."),
    speedupHelp: vscode.l10n.t('Agent time ÷ wall time: how many agents worked at once, on average.'),
    criticalPathHelp: vscode.l10n.t(
      "The longest chain of running times along the tasks' dependencies (without dependencies, the longest agent): no number of slots finishes faster.",
    ),
    idleHelp: vscode.l10n.t('Slots × wall time − agent time: slot time in which no agent ran.'),
    slotsMaxParallel: vscode.l10n.t('{0} slots (maxParallel)'),
    slotsPeak: vscode.l10n.t('{0} slots (the most agents at once)'),
    definitions: vscode.l10n.t('How these figures are measured'),
    empty: vscode.l10n.t('No agents yet. Dispatch an agent or run a plan: each appears here as a bar over time.'),
    chart: vscode.l10n.t('Agents over time'),
    now: vscode.l10n.t('now'),
    seconds: vscode.l10n.t('{0} s'),
    minutes: vscode.l10n.t('{0} min {1} s'),
    hours: vscode.l10n.t('{0} h {1} min'),
    times: vscode.l10n.t('{0}×'),
    segment: vscode.l10n.t('{0} from {1} to {2} ({3})'),
    segmentOpen: vscode.l10n.t('{0} since {1} ({2} so far)'),
    marker: vscode.l10n.t('{0} at {1}'),
    barSummary: vscode.l10n.t('{0}: {1}'),
  };
}
