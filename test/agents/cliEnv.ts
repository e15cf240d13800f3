// How each real agent CLI is pointed at the scripted model server (modelServer.ts) and kept out of
// the real HOME: shared by the plain-Node runs (realClis.test.ts) and the real-VS-Code suite
// (test/suite/realClis.test.ts). No vscode import: both sides load it.
import * as fs from 'node:fs';
import * as path from 'node:path';

export type CliName = 'claude' | 'codex' | 'gemini' | 'copilot' | 'opencode';

/** Claude and Codex get a Markdown list: their presets put the prompt after `--`; Gemini's -p
 *  would take a leading "-" as an option. Copilot's create makes no parent folder: its file is at
 *  the top. OpenCode's task goes on stdin: spaces, quotes and lines that `run` would re-quote. */
export const cliPrompts: Readonly<Record<CliName, string>> = {
  claude: '- Create notes/hello.txt saying hello.\n- Then answer DONE.',
  codex: '- Create notes/hello.txt saying hello.\n- Then answer DONE.',
  gemini: 'Create notes/hello.txt saying hello, then answer DONE.',
  copilot: '- Create hello.txt saying hello.\n- Then answer DONE.',
  opencode: '- Create notes/hello.txt saying "hi".\n- Then answer DONE.',
};

/**
 * Copilot hides the value of its API key wherever it occurs in its output (a key "x" turns every
 * "x" of its JSON into "******"): the key must be a string no output contains.
 */
const copilotKey = 'sk-copilot-test-key-7f3a9c';

/** Environment and config files (written under `home`) that point `name` at the server at `url`. */
export function cliServerEnv(name: CliName, url: string, home: string): Record<string, string> {
  switch (name) {
    case 'claude':
      return {
        ANTHROPIC_BASE_URL: url,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_MAX_RETRIES: '0',
      };
    case 'codex': {
      // A config file rather than -c flags, so the run uses the preset's argv unchanged.
      const codexHome = path.join(home, '.codex');
      fs.mkdirSync(codexHome, { recursive: true });
      fs.writeFileSync(
        path.join(codexHome, 'config.toml'),
        [
          'model = "gpt-5.5"',
          'model_provider = "mock"',
          '[model_providers.mock]',
          'name = "mock"',
          `base_url = "${url}/v1"`,
          'wire_api = "responses"',
          'env_key = "MOCK_API_KEY"',
          'request_max_retries = 0',
          'stream_max_retries = 0',
          '',
        ].join('\n'),
      );
      return { CODEX_HOME: codexHome, MOCK_API_KEY: 'sk-test' };
    }
    case 'gemini':
      fs.mkdirSync(path.join(home, '.gemini'), { recursive: true });
      fs.writeFileSync(
        path.join(home, '.gemini', 'settings.json'),
        JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
      );
      return { GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: 'test-key' };
    case 'copilot':
      // BYOK by environment; without COPILOT_OFFLINE it first tries GitHub for ~15 s.
      return {
        COPILOT_PROVIDER_BASE_URL: `${url}/v1`,
        COPILOT_PROVIDER_API_KEY: copilotKey,
        COPILOT_MODEL: 'gpt-4.1',
        COPILOT_OFFLINE: 'true',
      };
    case 'opencode':
      // A custom provider by environment (no file); the SDK it names is bundled with opencode.
      return {
        OPENCODE_CONFIG_CONTENT: JSON.stringify({
          provider: {
            mock: {
              npm: '@ai-sdk/openai-compatible',
              options: { baseURL: `${url}/v1`, apiKey: 'sk-opencode-test' },
              models: { scripted: { tool_call: true } },
            },
          },
          model: 'mock/scripted',
        }),
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_AUTOUPDATE: '1',
      };
  }
}

/** HOME, TMPDIR and the XDG folders inside `home` (created), loopback unproxied, no colour. */
export function homeEnv(home: string): Record<string, string> {
  const tmp = path.join(home, 'tmp');
  fs.mkdirSync(tmp, { recursive: true });
  return {
    HOME: home,
    TMPDIR: tmp,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    NO_COLOR: '1',
  };
}
