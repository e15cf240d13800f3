import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentError } from '../../src/core/errors';
import {
  builtinProfiles,
  demoCommand,
  expandArgs,
  findProfile,
  mergeProfiles,
  promptPlaceholder,
  validateProfile,
} from '../../src/core/clis/profiles';
import { SupervisedRunner } from '../../src/node/supervisedRunner';

// Compiled to out/test/unit/; the bundled supervisor is dist/supervisor.js at the repository root.
const supervisorScript = path.resolve(__dirname, '../../../dist/supervisor.js');

describe('profiles', () => {
  describe('expandArgs', () => {
    it('an argument that is exactly ${prompt} becomes the prompt, untouched', () => {
      const prompt = 'a "b" \'c\' $(d) `e` ; f && g\nh';
      assert.deepEqual(expandArgs(['-p', promptPlaceholder, '--flag'], prompt), ['-p', prompt, '--flag']);
    });

    it('replaces every placeholder inside an argument', () => {
      assert.deepEqual(expandArgs(['--message=${prompt}', '${prompt}|${prompt}'], 'x y'), ['--message=x y', 'x y|x y']);
    });

    it('leaves arguments without a placeholder alone and never splits the prompt', () => {
      assert.deepEqual(expandArgs(['exec', '-s', 'workspace-write'], 'ignored'), ['exec', '-s', 'workspace-write']);
      assert.deepEqual(expandArgs([promptPlaceholder], 'one two  three'), ['one two  three']);
      assert.deepEqual(expandArgs([promptPlaceholder], ''), ['']);
    });

    it('does not treat $ patterns in the prompt specially', () => {
      assert.deepEqual(expandArgs(['pre-${prompt}-post'], "$& $' $` $$"), ["pre-$& $' $` $$-post"]);
    });

    it('every built-in profile passes the prompt once, in one argument: alone, or as the value of a --flag=', () => {
      for (const profile of builtinProfiles.filter((p) => p.promptVia !== 'stdin')) {
        for (const args of [profile.args, profile.continueArgs ?? profile.args]) {
          const holding = expandArgs(args, '- THE PROMPT').filter((a) => a.includes('- THE PROMPT'));
          assert.equal(holding.length, 1, profile.name);
          assert.match(holding[0], /^(--[a-z-]+=)?- THE PROMPT$/, profile.name);
          const at = args.findIndex((a) => a.includes('${prompt}'));
          // A bare prompt that starts with "-" is only safe after "--" (or for the demo agent, which takes one argument).
          assert.ok(
            holding[0] !== '- THE PROMPT' || args[at - 1] === '--' || profile.name === 'demo',
            `${profile.name}: ${args.join(' ')}`,
          );
        }
      }
      assert.equal(findProfile(builtinProfiles, 'demo').command, demoCommand);
    });

    it('a built-in profile that gives the task on stdin has no ${prompt} argument at all', () => {
      const onStdin = builtinProfiles.filter((p) => p.promptVia === 'stdin');
      assert.deepEqual(
        onStdin.map((p) => p.name),
        ['opencode'],
      );
      for (const profile of onStdin) {
        assert.equal(profile.mode, 'headless');
        for (const args of [profile.args, profile.continueArgs ?? profile.args]) {
          assert.deepEqual(expandArgs(args, 'THE PROMPT'), args, profile.name);
        }
      }
    });
  });

  describe('validateProfile', () => {
    it('accepts a minimal profile and fills defaults', () => {
      assert.deepEqual(validateProfile({ name: 'x', command: 'x-cli' }), {
        name: 'x',
        command: 'x-cli',
        args: [],
        mode: 'headless',
        env: {},
        description: undefined,
      });
    });

    it('keeps every valid field', () => {
      const raw = {
        name: 't',
        command: 'tool',
        args: ['-p', '${prompt}'],
        mode: 'terminal',
        env: { A: '1' },
        continueArgs: ['--continue', '${prompt}'],
        description: 'd',
      };
      assert.deepEqual(validateProfile(raw), raw);
    });

    it('keeps how the task reaches the CLI and the new output formats', () => {
      const raw = {
        name: 'oc',
        command: 'opencode',
        args: ['run', '--format', 'json'],
        mode: 'headless',
        env: {},
        description: 'd',
        output: 'opencode-json',
        promptVia: 'stdin',
      };
      assert.deepEqual(validateProfile(raw), raw);
      const copilot = {
        ...raw,
        name: 'cp',
        args: ['--prompt=${prompt}'],
        output: 'copilot-json',
        promptVia: 'argument',
      };
      assert.deepEqual(validateProfile(copilot), copilot);
    });

    it('reports each kind of invalid entry with a message', () => {
      const cases: Array<[unknown, RegExp]> = [
        [null, /must be an object/],
        ['claude', /must be an object/],
        [{ command: 'x' }, /"name"/],
        [{ name: '  ', command: 'x' }, /"name"/],
        [{ name: 'n' }, /"command"/],
        [{ name: 'n', command: 'x', args: 'a b' }, /"args"/],
        [{ name: 'n', command: 'x', continueArgs: [1] }, /"continueArgs"/],
        [{ name: 'n', command: 'x', args: ['a', 1] }, /"args"/],
        [{ name: 'n', command: 'x', mode: 'background' }, /"mode"/],
        [{ name: 'n', command: 'x', env: { A: 1 } }, /"env"/],
        [{ name: 'n', command: 'x', output: 'json' }, /"output" must be one of .*"copilot-json", "opencode-json"/],
        [{ name: 'n', command: 'x', promptVia: 'pipe' }, /"promptVia" must be one of "argument", "stdin"/],
        [
          { name: 'n', command: 'x', promptVia: 'stdin', mode: 'terminal' },
          /"promptVia": "stdin" needs "mode": "headless"/,
        ],
        [{ name: 'n', command: 'x', promptVia: 'stdin', args: ['run', '${prompt}'] }, /remove "\$\{prompt\}"/],
        [{ name: 'n', command: 'x', promptVia: 'stdin', continueArgs: ['-m=${prompt}'] }, /remove "\$\{prompt\}"/],
      ];
      for (const [raw, expected] of cases) {
        const result = validateProfile(raw);
        assert.equal(typeof result, 'string', JSON.stringify(raw));
        assert.match(result as string, expected);
      }
    });
  });

  describe('mergeProfiles', () => {
    it('without user profiles gives the built-ins', () => {
      const { profiles, problems } = mergeProfiles([]);
      assert.deepEqual(
        profiles.map((p) => p.name),
        builtinProfiles.map((p) => p.name),
      );
      assert.deepEqual(problems, []);
    });

    it('a user profile overrides the built-in of the same name and new ones are added', () => {
      const { profiles, problems } = mergeProfiles([
        { name: 'claude', command: '/opt/claude', args: ['${prompt}'] },
        { name: 'mine', command: 'my-agent', args: ['--task', '${prompt}'] },
      ]);
      assert.deepEqual(problems, []);
      assert.equal(findProfile(profiles, 'claude').command, '/opt/claude');
      assert.equal(findProfile(profiles, 'mine').command, 'my-agent');
      assert.equal(profiles.filter((p) => p.name === 'claude').length, 1);
    });

    it('invalid entries are reported with their index and do not replace anything', () => {
      // (A built-in's name without any command is a partial override: test/unit/sandbox.test.ts.)
      const { profiles, problems } = mergeProfiles([{ name: 'demo', command: ' ' }, 42]);
      assert.equal(problems.length, 2);
      assert.match(problems[0], /^parallelAgents\.profiles\[0\]: /);
      assert.match(problems[1], /^parallelAgents\.profiles\[1\]: /);
      assert.equal(findProfile(profiles, 'demo').command, demoCommand);
    });

    it('findProfile throws a typed error for an unknown name', () => {
      assert.throws(
        () => findProfile(builtinProfiles, 'nope'),
        (e: unknown) => AgentError.is(e, 'unknownProfile'),
      );
    });
  });

  describe('a real process receives the prompt as one argument', function () {
    this.timeout(30000);
    let dir: string;

    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-argv-'));
      // Records its arguments, nothing else; the file name comes from the environment.
      fs.writeFileSync(
        path.join(dir, 'record.js'),
        "require('fs').writeFileSync(process.env.RECORD_TO, JSON.stringify(process.argv.slice(2)));\n",
      );
    });

    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    /** The product's runner: each agent under dist/supervisor.js, which receives the arguments through its spec file. */
    const runner = () =>
      new SupervisedRunner({ supervisorScript, runtime: process.execPath, stateDir: path.join(dir, 'state') });

    const nasty: Array<[string, string]> = [
      ['single and double quotes', `it's a "quoted" 'string' with \\" escapes`],
      ['command substitution', '$(touch pwned)'],
      ['backticks', '`touch pwned2`'],
      ['semicolon', '; touch pwned3'],
      ['and-and', '&& touch pwned4'],
      ['pipes and redirections', '| touch pwned5 > pwned6 < /dev/null 2>&1 &'],
      ['newlines', 'first line\nsecond; touch pwned7\r\nthird\n'],
      ['variables and globs', '$HOME ${PATH} %PATH% !! * ?.js ~ [a-z]'],
      ['leading dash', '--help'],
      ['empty', ''],
      ['emoji and other scripts', 'ship it 🚀👩‍💻 — ünïcödé 日本語 עברית'],
      ['10 KB of text', `$(touch pwned8) "q" 'q' \`touch pwned9\` ; && |\n🚀 `.repeat(400).slice(0, 10 * 1024)],
    ];

    for (const [label, prompt] of nasty) {
      it(label, async () => {
        const out = path.join(dir, `argv-${label.replace(/\W+/g, '-')}.json`);
        const args = expandArgs(['${prompt}'], prompt);
        const agent = runner().start({
          // The runner names its state files after the agent id: letters, digits, . _ - only.
          agentId: `argv-${label.replace(/\W+/g, '-')}`,
          title: label,
          file: process.execPath,
          args: [path.join(dir, 'record.js'), ...args],
          cwd: dir,
          env: { RECORD_TO: out },
          logPath: path.join(dir, 'logs', `${label}.log`),
        });
        assert.deepEqual(await agent.exit, { exitCode: 0 });
        const received = JSON.parse(fs.readFileSync(out, 'utf8')) as string[];
        assert.equal(received.length, 1);
        assert.ok(
          Buffer.from(received[0], 'utf8').equals(Buffer.from(prompt, 'utf8')),
          'argument differs from the prompt',
        );
        assert.deepEqual(findPwned(dir), []);
      });
    }

    it('an argument that embeds the prompt is still one argument', async () => {
      const prompt = "x'; touch pwned10; echo '";
      const out = path.join(dir, 'embedded.json');
      const agent = runner().start({
        agentId: 'e',
        title: 'e',
        file: process.execPath,
        args: [path.join(dir, 'record.js'), ...expandArgs(['--message=${prompt}', '-y'], prompt)],
        cwd: dir,
        env: { RECORD_TO: out },
        logPath: path.join(dir, 'logs', 'embedded.log'),
      });
      assert.deepEqual(await agent.exit, { exitCode: 0 });
      assert.deepEqual(JSON.parse(fs.readFileSync(out, 'utf8')), [`--message=${prompt}`, '-y']);
      assert.deepEqual(findPwned(dir), []);
    });

    it('a task on stdin (promptVia "stdin") reaches the standard input byte for byte, which is then closed', async () => {
      // Reads its whole input (it ends only once the input is closed) and records it in hex.
      const reader = path.join(dir, 'stdin.js');
      fs.writeFileSync(
        reader,
        'const c = []; process.stdin.on("data", (d) => c.push(d)).on("end", () => ' +
          'require("fs").writeFileSync(process.env.RECORD_TO, Buffer.concat(c).toString("hex")));\n',
      );
      for (const [label, prompt] of [...nasty, ['100 KB', 'ü "q" \n'.repeat(12800)] as [string, string]]) {
        const id = `stdin-${label.replace(/\W+/g, '-')}`;
        const out = path.join(dir, `${id}.hex`);
        const agent = runner().start({
          agentId: id,
          title: label,
          file: process.execPath,
          args: [reader],
          cwd: dir,
          env: { RECORD_TO: out },
          logPath: path.join(dir, 'logs', `${id}.log`),
          stdin: prompt,
        });
        assert.deepEqual(await agent.exit, { exitCode: 0 }, label);
        assert.equal(fs.readFileSync(out, 'utf8'), Buffer.from(prompt, 'utf8').toString('hex'), label);
      }
      assert.deepEqual(findPwned(dir), []);
    });

    it('an agent that exits without reading a task larger than a pipe holds ends with its own exit code', async () => {
      const logPath = path.join(dir, 'logs', 'unread.log');
      const agent = runner().start({
        agentId: 'unread-stdin',
        title: 'unread',
        file: process.execPath,
        args: ['-e', 'process.exit(3)'],
        cwd: dir,
        env: {},
        logPath,
        stdin: 'x'.repeat(1024 * 1024),
      });
      assert.deepEqual(await agent.exit, { exitCode: 3 });
      assert.equal(fs.readFileSync(logPath, 'utf8'), '', 'no supervisor error in the log');
    });

    it('without a task on stdin the standard input is empty', async () => {
      const out = path.join(dir, 'no-stdin.hex');
      const agent = runner().start({
        agentId: 'no-stdin',
        title: 'no stdin',
        file: process.execPath,
        args: [path.join(dir, 'stdin.js')],
        cwd: dir,
        env: { RECORD_TO: out },
        logPath: path.join(dir, 'logs', 'no-stdin.log'),
      });
      assert.deepEqual(await agent.exit, { exitCode: 0 });
      assert.equal(fs.readFileSync(out, 'utf8'), '');
    });

    it("the agent gets PWD set to its own folder, not the host's (OpenCode works where PWD says)", async function () {
      if (process.platform === 'win32') {
        this.skip();
      }
      const folder = fs.realpathSync(fs.mkdtempSync(path.join(dir, 'pwd-')));
      const out = path.join(dir, 'pwd.json');
      fs.writeFileSync(
        path.join(dir, 'pwd.js'),
        'require("fs").writeFileSync(process.env.RECORD_TO, JSON.stringify([process.env.PWD, process.cwd()]));\n',
      );
      assert.notEqual(process.env.PWD, folder);
      const agent = runner().start({
        agentId: 'pwd',
        title: 'pwd',
        file: process.execPath,
        args: [path.join(dir, 'pwd.js')],
        cwd: folder,
        env: { RECORD_TO: out, PWD: '/somewhere/else' },
        logPath: path.join(dir, 'logs', 'pwd.log'),
      });
      assert.deepEqual(await agent.exit, { exitCode: 0 });
      assert.deepEqual(JSON.parse(fs.readFileSync(out, 'utf8')), [folder, folder]);
    });
  });
});

function findPwned(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => path.basename(f).startsWith('pwned'));
}
