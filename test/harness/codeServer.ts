// Starts a real VS Code (code-server, the workbench in Debian's Chromium driven by playwright-core)
// with an extension under development (this repository, or a stub beside an installed .vsix:
// extensionsDir). Two uses: run the extension-host mocha suite (runExtensionTests), or hand a UI
// test the workbench page (launchCodeServer without extensionTestsPath). Facts behind every flag:
// shared notes, real-vscode-testing.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { format } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testResultsDir } from './paths';
import { provision, type ProvisionedPaths } from './provision';
import { cleanEnv, killGroup, readPort } from './serverProcess';

export { installExtension } from './serverProcess';

export interface LaunchOptions {
  /** Absolute path of the extension to load (the folder holding its package.json). */
  extensionDevelopmentPath: string;
  /** Absolute path of the folder the workbench opens. */
  workspaceFolder: string;
  /** A .code-workspace file (multi-root) the workbench opens instead of workspaceFolder. */
  workspaceFile?: string;
  /** Absolute path of a compiled `run(): Promise<void>` entry; omit for UI tests. */
  extensionTestsPath?: string;
  /** Environment variables the extension host (and so the tests) see. */
  extensionEnvironment?: Record<string, string>;
  /** User settings merged over the quiet defaults below. */
  settings?: Record<string, unknown>;
  /**
   * Called with each line the workbench forwards (test output, extension-host console), except
   * known harmless workbench chatter (see isWorkbenchNoise) unless PA_HARNESS_VERBOSE=1.
   */
  onLog?: (line: string) => void;
  /** Browser viewport; screenshots have this size. */
  viewport?: { width: number; height: number };
  /** Paths from provision(); looked up when omitted. */
  paths?: ProvisionedPaths;
  /**
   * A folder of already installed extensions (installExtension) that code-server loads instead of
   * an empty one; left in place by close().
   */
  extensionsDir?: string;
  /**
   * Workspace trust as users get it: security.workspace.trust.enabled, no
   * --disable-workspace-trust, and no startup prompt, so the folder stays untrusted (Restricted Mode).
   */
  workspaceTrust?: boolean;
  /**
   * The server's Machine settings (Machine/settings.json), written before launch: in this remote
   * window VS Code reads machine-scoped settings (profiles, checkCommand) from there, not from the user's.
   */
  machineSettings?: Record<string, unknown>;
  /** User keybindings (User/keybindings.json), e.g. a key that runs a command with arguments. */
  keybindings?: readonly { key: string; command: string; args?: unknown }[];
}

export interface CodeServerHandle {
  page: Page;
  browser: Browser;
  /** The workbench URL the page was sent to. */
  url: string;
  port: number;
  /** The user-data dir; settings are in User/settings.json. */
  userDataDir: string;
  /** Resolves with the code the workbench passes to codeAutomationExit when tests end. */
  exited: Promise<number>;
  /** Every line forwarded so far through codeAutomationLog, noise included. */
  readonly log: readonly string[];
  /** The last lines code-server printed, for diagnostics. */
  readonly serverOutput: readonly string[];
  /** Waits until the workbench's status bar is visible (8-11 s after launch here). */
  waitForWorkbench(timeoutMs?: number): Promise<void>;
  /** Closes the browser, kills code-server's whole process group, removes the temp dirs. */
  close(): Promise<void>;
}

export interface SuiteRun {
  /** 0 when every test passed; 1 when a test failed or the entry was missing; -1 on timeout. */
  exitCode: number;
  timedOut: boolean;
  log: string[];
  serverOutput: string[];
  /** test-results/suite-failure.png or suite-timeout.png, taken when the run did not pass. */
  screenshot?: string;
}

export const defaultSettings: Readonly<Record<string, unknown>> = {
  'workbench.startupEditor': 'none',
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'terminal.integrated.gpuAcceleration': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
};

const chromiumArgs = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const verbose = process.env.PA_HARNESS_VERBOSE === '1';

/** Launches code-server and a browser page on its workbench. Always close() the handle. */
export async function launchCodeServer(options: LaunchOptions): Promise<CodeServerHandle> {
  const paths = options.paths ?? (await provision());
  const root = await mkdtemp(join(tmpdir(), 'pa-code-server-'));
  const dirs = {
    userData: join(root, 'user-data'),
    extensions: options.extensionsDir ?? join(root, 'extensions'),
    config: join(root, 'xdg-config'),
    data: join(root, 'xdg-data'),
    cache: join(root, 'xdg-cache'),
  };
  await Promise.all(Object.values(dirs).map((d) => mkdir(d, { recursive: true })));
  await mkdir(join(dirs.userData, 'User'), { recursive: true });
  const trustSettings = options.workspaceTrust
    ? {
        'security.workspace.trust.enabled': true,
        'security.workspace.trust.startupPrompt': 'never',
        'security.workspace.trust.untrustedFiles': 'open',
      }
    : {};
  const settings = { ...defaultSettings, ...trustSettings, ...options.settings };
  await writeFile(join(dirs.userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  if (options.machineSettings) {
    await mkdir(join(dirs.userData, 'Machine'), { recursive: true });
    await writeFile(join(dirs.userData, 'Machine', 'settings.json'), JSON.stringify(options.machineSettings, null, 2));
  }
  if (options.keybindings) {
    await writeFile(join(dirs.userData, 'User', 'keybindings.json'), JSON.stringify(options.keybindings, null, 2));
  }
  const env = { ...cleanEnv(), XDG_CONFIG_HOME: dirs.config, XDG_DATA_HOME: dirs.data, XDG_CACHE_HOME: dirs.cache };

  let server: ChildProcess | undefined;
  let browser: Browser | undefined;
  const serverOutput: string[] = [];
  const cleanup = async (): Promise<void> => {
    await browser?.close().catch(() => undefined);
    if (server) {
      await killGroup(server);
    }
    await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  };
  // An extensions dir of the caller's lives outside `root`: close() leaves it alone.

  try {
    server = spawn(
      paths.node,
      [
        paths.codeServer,
        ...serverArgs(dirs, options.workspaceTrust === true),
        options.workspaceFile ?? options.workspaceFolder,
      ],
      {
        detached: true,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const port = await readPort(server, serverOutput);

    browser = await chromium.launch({ executablePath: paths.chromium, headless: true, args: chromiumArgs, env });
    const page = await browser.newPage({ viewport: options.viewport ?? { width: 1400, height: 900 } });
    const log: string[] = [];
    let resolveExit: (code: number) => void = () => undefined;
    const exited = new Promise<number>((resolve) => (resolveExit = resolve));
    await page.exposeFunction('codeAutomationLog', (type: unknown, args: unknown) => {
      const text = formatLog(args);
      const noise = !verbose && isWorkbenchNoise(text);
      for (const line of text.split(/\r?\n/)) {
        const tagged = (type === 'error' || type === 'warn') && line ? `[${String(type)}] ${line}` : line;
        log.push(tagged);
        if (!noise) {
          options.onLog?.(tagged);
        }
      }
    });
    await page.exposeFunction('codeAutomationExit', (code: unknown) => {
      resolveExit(typeof code === 'number' ? code : 1);
    });

    const url = workbenchUrl(port, options);
    await page.goto(url);
    return {
      page,
      browser,
      url,
      port,
      userDataDir: dirs.userData,
      exited,
      log,
      serverOutput,
      waitForWorkbench: async (timeoutMs = 60_000) => {
        await page.locator('.monaco-workbench .part.statusbar').waitFor({ state: 'visible', timeout: timeoutMs });
      },
      close: cleanup,
    };
  } catch (e) {
    await cleanup();
    if (serverOutput.length > 0) {
      console.error(`[harness] code-server output:\n${serverOutput.join('\n')}`);
    }
    throw e;
  }
}

/** Runs an extension-host test entry in code-server; never rejects for a test failure. */
export async function runExtensionTests(
  options: LaunchOptions & {
    extensionTestsPath: string;
    timeoutMs?: number;
    /** Runs once the tests have ended (not after a timeout), before the window closes. */
    afterTests?: (handle: CodeServerHandle) => Promise<void>;
    /** Starts with the window, while the tests run (they may wait on it); ended before afterTests. */
    duringTests?: (handle: CodeServerHandle) => Promise<void>;
  },
): Promise<SuiteRun> {
  const handle = await launchCodeServer(options);
  const during = options.duringTests?.(handle);
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), options.timeoutMs ?? 10 * 60_000);
    });
    const outcome = await Promise.race([handle.exited, timeout]);
    let screenshot: string | undefined;
    if (outcome !== 0) {
      // What the window showed (a notification waiting for a click, say) often explains a hang.
      screenshot = join(testResultsDir, outcome === 'timeout' ? 'suite-timeout.png' : 'suite-failure.png');
      await mkdir(testResultsDir, { recursive: true });
      await handle.page.screenshot({ path: screenshot }).catch(() => (screenshot = undefined));
    }
    if (outcome !== 'timeout') {
      await during;
      await options.afterTests?.(handle);
    }
    return {
      screenshot,
      exitCode: outcome === 'timeout' ? -1 : outcome,
      timedOut: outcome === 'timeout',
      log: [...handle.log],
      serverOutput: [...handle.serverOutput],
    };
  } finally {
    clearTimeout(timer);
    await handle.close();
  }
}

/** The workbench URL; `payload` is honoured because the server runs the smoke-test driver. */
export function workbenchUrl(port: number, options: LaunchOptions): string {
  const remote = (path: string): string => `vscode-remote://127.0.0.1:${port}${encodeURI(path)}`;
  const payload: [string, string][] = [['extensionDevelopmentPath', remote(options.extensionDevelopmentPath)]];
  if (options.extensionTestsPath) {
    payload.push(['extensionTestsPath', remote(options.extensionTestsPath)]);
  }
  if (options.extensionEnvironment) {
    payload.push(['extensionEnvironment', JSON.stringify(options.extensionEnvironment)]);
  }
  const opened: [string, string] = options.workspaceFile
    ? ['workspace', options.workspaceFile]
    : ['folder', options.workspaceFolder];
  const query = new URLSearchParams([opened, ['payload', JSON.stringify(payload)]]);
  return `http://127.0.0.1:${port}/?${query.toString()}`;
}

function serverArgs(dirs: { userData: string; extensions: string }, workspaceTrust: boolean): string[] {
  const args = [
    '--config',
    '/dev/null',
    '--bind-addr',
    '127.0.0.1:0',
    '--auth',
    'none',
    '--user-data-dir',
    dirs.userData,
    '--extensions-dir',
    dirs.extensions,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    '--reconnection-grace-time',
    '10',
    '--vscode-option',
    'enable-smoke-test-driver',
  ];
  return workspaceTrust ? args.filter((a) => a !== '--disable-workspace-trust') : args;
}

/** The workbench passes console arguments as given: a printf-style format and its values. */
function formatLog(args: unknown): string {
  return format(...(Array.isArray(args) ? args : [args]));
}

const workbenchNoise = [
  /^Resolv(ing|ed) connection token/,
  /^Creating a socket/,
  /^\[reconnection-grace-time\]/,
  /^Updating additional builtin extensions cache/,
  /^\[Service Worker\]/,
  /^\[AgentHost/,
  /^\[AccountPolicyGate\]/,
  // No network here: the extension gallery, GitHub authentication and vsda are unreachable.
  /ENOTFOUND/,
  /^Canceled: Canceled/,
  /Timed out waiting for authentication provider/,
  /vsda/,
];

/** True for workbench messages that say nothing about the extension or its tests. */
export function isWorkbenchNoise(text: string): boolean {
  return workbenchNoise.some((re) => re.test(text));
}
