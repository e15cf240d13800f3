// How each real agent CLI is pointed at the scripted model server (modelServer.ts) and kept out of
// the real HOME: shared by the plain-Node runs (realClis.test.ts) and the real-VS-Code suite
// (test/suite/realClis.test.ts). No vscode import: both sides load it.
import * as fs from 'node:fs';
import * as path from 'node:path';

export type CliName = 'claude' | 'codex' | 'gemini';

/** Claude and Codex get a Markdown list: their presets put the prompt after `--`; Gemini's -p
 *  would take a leading "-" as an option. */
export const cliPrompts: Readonly<Record<CliName, string>> = {
  claude: '- Create notes/hello.txt saying hello.\n- Then answer DONE.',
  codex: '- Create notes/hello.txt saying hello.\n- Then answer DONE.',
  gemini: 'Create notes/hello.txt saying hello, then answer DONE.',
};

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
