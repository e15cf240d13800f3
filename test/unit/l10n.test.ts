import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../harness/paths';

// Every user-facing string in English and Spanish: package.nls*.json for the contributions,
// l10n/bundle.l10n*.json (keyed by the English message) for vscode.l10n.t at runtime.

type Strings = Record<string, string>;

const readJson = <T>(path: string): T => JSON.parse(readFileSync(join(repoRoot, path), 'utf8')) as T;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    return statSync(join(repoRoot, path)).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

interface L10nCall {
  readonly file: string;
  readonly line: number;
  /** The message, or undefined when the first argument is not a plain string literal. */
  readonly message?: string;
}

const escapes: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', 0: '\0' };

/** Reads the string literal opening at `start` (a quote); undefined for a template with `${`. */
function readLiteral(text: string, start: number): string | undefined {
  const quote = text[start];
  let out = '';
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === quote) {
      return out;
    }
    if (quote === '`' && c === '$' && text[i + 1] === '{') {
      return undefined;
    }
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = text[++i];
    if (next === 'u') {
      const braced = text[i + 1] === '{';
      const hex = braced ? text.slice(i + 2, text.indexOf('}', i)) : text.slice(i + 1, i + 5);
      out += String.fromCodePoint(parseInt(hex, 16));
      i += braced ? hex.length + 2 : 4;
    } else if (next === 'x') {
      out += String.fromCharCode(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (next !== '\n') {
      out += escapes[next] ?? next;
    }
  }
  return undefined;
}

/** Every `vscode.l10n.t(` call of src/ with its message. */
function l10nCalls(): L10nCall[] {
  return sourceFiles('src').flatMap((file) => {
    const text = readFileSync(join(repoRoot, file), 'utf8');
    return [...text.matchAll(/\bl10n\.t\(\s*/g)].map((m) => {
      const start = m.index + m[0].length;
      const line = text.slice(0, m.index).split('\n').length;
      return { file, line, message: /['"`]/.test(text[start]) ? readLiteral(text, start) : undefined };
    });
  });
}

function lineOf(call: L10nCall): string {
  return readFileSync(join(repoRoot, call.file), 'utf8').split('\n')[call.line - 1] ?? '';
}

const placeholders = (s: string) =>
  [...s.matchAll(/\{(\d+)\}/g)]
    .map((m) => m[1])
    .sort()
    .join(',');
const codicons = (s: string) =>
  [...s.matchAll(/\$\([a-z0-9~-]+\)/g)]
    .map((m) => m[0])
    .sort()
    .join(' ');
const linkTargets = (s: string) =>
  [...s.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1])
    .sort()
    .join(' ');
const inlineCode = (s: string) =>
  [...s.matchAll(/`([^`]+)`/g)]
    .map((m) => m[1])
    .sort()
    .join(' ');

/** Same keys, non-empty strings, and the same placeholders, icons, links and code in both languages. */
function assertSameShape(en: Strings, es: Strings, what: string): void {
  assert.deepEqual(Object.keys(es).sort(), Object.keys(en).sort(), `${what}: both languages have the same keys`);
  for (const [key, english] of Object.entries(en)) {
    const spanish = es[key];
    assert.ok(typeof english === 'string' && english.trim() !== '', `${what}: "${key}" has English text`);
    assert.ok(typeof spanish === 'string' && spanish.trim() !== '', `${what}: "${key}" has Spanish text`);
    assert.equal(placeholders(spanish), placeholders(english), `${what}: placeholders of "${key}"`);
    assert.equal(codicons(spanish), codicons(english), `${what}: icons of "${key}"`);
    assert.equal(linkTargets(spanish), linkTargets(english), `${what}: link targets of "${key}"`);
  }
}

interface Manifest {
  contributes: {
    commands: { command: string; title: string; category?: string }[];
    configuration: { title: string; properties: Record<string, Setting> };
    walkthroughs: {
      id: string;
      title: string;
      description: string;
      steps: {
        id: string;
        title: string;
        description: string;
        media: { markdown?: string };
        completionEvents?: string[];
      }[];
    }[];
    keybindings: { command: string; key: string; mac?: string }[];
    viewsWelcome: { view: string; contents: string }[];
  };
  l10n?: string;
}

interface Setting {
  type?: string;
  description?: string;
  markdownDescription?: string;
  enum?: string[];
  enumDescriptions?: string[];
  items?: { properties?: Record<string, Setting> };
}

/** Every string value under `value` whose key is one VS Code shows to users, with its JSON path. */
function userFacing(value: unknown, path: string, out: [string, string][] = []): [string, string][] {
  const shown =
    /^(title|description|markdownDescription|displayName|name|contextualTitle|contents|category|label|enumDescriptions|markdownEnumDescriptions|altText|deprecationMessage|markdownDeprecationMessage|patternErrorMessage)$/;
  if (Array.isArray(value)) {
    value.forEach((v, i) => userFacing(v, `${path}[${i}]`, out));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'string' && shown.test(k)) {
        out.push([`${path}.${k}`, v]);
      } else if (Array.isArray(v) && /^(enumDescriptions|markdownEnumDescriptions)$/.test(k)) {
        v.forEach((s: unknown, i) => typeof s === 'string' && out.push([`${path}.${k}[${i}]`, s]));
      } else {
        userFacing(v, `${path}.${k}`, out);
      }
    }
  }
  return out;
}

describe('localization (English and Spanish)', () => {
  const pkgText = readFileSync(join(repoRoot, 'package.json'), 'utf8');
  const pkg = JSON.parse(pkgText) as Manifest & Record<string, unknown>;
  const nlsEn = readJson<Strings>('package.nls.json');
  const nlsEs = readJson<Strings>('package.nls.es.json');
  const bundleEn = readJson<Strings>('l10n/bundle.l10n.json');
  const bundleEs = readJson<Strings>('l10n/bundle.l10n.es.json');
  // errorMessages.ts translates the literal templates of errorText.ts, which are read as l10n.t calls too.
  const translatesTemplates = (c: L10nCall) =>
    c.file === 'src/ui/errorMessages.ts' && /^\s*return vscode\.l10n\.t\(text\.template, /.test(lineOf(c));
  const templateCalls = l10nCalls().filter(translatesTemplates);
  const calls = l10nCalls().filter((c) => !translatesTemplates(c));

  describe('package.json contributions', () => {
    it('every %key% of package.json is in package.nls.json and package.nls.es.json, which have the same keys', () => {
      const used = new Set([...pkgText.matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]));
      assert.ok(used.size > 50, 'package.json uses nls keys');
      for (const key of used) {
        assert.ok(key in nlsEn, `"${key}" is in package.nls.json`);
        assert.ok(key in nlsEs, `"${key}" is in package.nls.es.json`);
      }
      assert.deepEqual(
        Object.keys(nlsEn).filter((k) => !used.has(k)),
        [],
        'package.nls.json has no unused key',
      );
      assertSameShape(nlsEn, nlsEs, 'package.nls');
    });

    it('leaves no user-facing text literal: titles, descriptions, names and welcome contents are all %keys%', () => {
      const literal = [
        ...userFacing({ displayName: pkg.displayName, description: pkg.description }, ''),
        ...userFacing(pkg.capabilities, 'capabilities'),
        ...userFacing(pkg.contributes, 'contributes'),
      ].filter(([, text]) => !/^%[^%]+%$/.test(text));
      assert.deepEqual(literal, []);
    });

    it('gives every setting a markdownDescription and every enum its enumDescriptions', () => {
      const check = (name: string, s: Setting) => {
        assert.ok(s.markdownDescription, `${name} has a markdownDescription`);
        if (s.enum) {
          assert.equal(s.enumDescriptions?.length, s.enum.length, `${name} describes each of its values`);
        }
        for (const [sub, p] of Object.entries(s.items?.properties ?? {})) {
          check(`${name}[].${sub}`, p);
        }
      };
      for (const [name, setting] of Object.entries(pkg.contributes.configuration.properties)) {
        check(name, setting);
      }
    });

    it('declares the l10n folder and a keybinding for Dispatch Agent', () => {
      assert.equal(pkg.l10n, './l10n');
      const binding = pkg.contributes.keybindings.find((k) => k.command === 'parallelAgents.dispatch');
      assert.deepEqual([binding?.key, binding?.mac], ['ctrl+alt+a', 'cmd+alt+a']);
    });

    it('has a walkthrough whose steps have media files, completion events and command buttons', () => {
      const [walkthrough] = pkg.contributes.walkthroughs;
      assert.deepEqual(
        walkthrough.steps.map((s) => s.id),
        ['trustFolder', 'installAgent', 'configureProfile', 'dispatch', 'review', 'plan'],
      );
      const commandIds = new Set(pkg.contributes.commands.map((c) => c.command));
      for (const step of walkthrough.steps) {
        assert.ok(
          step.media.markdown && statSync(join(repoRoot, step.media.markdown)).isFile(),
          `${step.id}: media file exists`,
        );
        assert.ok((step.completionEvents ?? []).length > 0, `${step.id}: has completion events`);
        for (const event of step.completionEvents ?? []) {
          const [, id] = /^onCommand:(.+)$/.exec(event) ?? [];
          assert.ok(!id || commandIds.has(id), `${step.id}: ${event} names a contributed command`);
        }
        const description = nlsEn[step.description.replace(/%/g, '')];
        assert.match(description, /\n\[[^\]]+\]\(command:[^)]+\)$/m, `${step.id}: ends with a command button`);
      }
      assert.ok(
        walkthrough.steps.some((s) => s.completionEvents?.includes('onSettingChanged:parallelAgents.profiles')),
      );
    });

    it('offers Dispatch Agent and Try the Demo Agent in the empty view', () => {
      const contents = pkg.contributes.viewsWelcome.map((w) => nlsEn[w.contents.replace(/%/g, '')]).join('\n');
      assert.match(contents, /\(command:parallelAgents\.dispatch\)/);
      assert.match(contents, /\(command:parallelAgents\.tryDemo\)/);
    });
  });

  describe('runtime strings (vscode.l10n.t)', () => {
    it('calls vscode.l10n.t only with a plain string literal as the message', () => {
      assert.ok(calls.length > 100, 'finds the calls');
      assert.deepEqual(
        calls.filter((c) => c.message === undefined).map((c) => `${c.file}:${c.line}`),
        [],
      );
      assert.equal(templateCalls.length, 1, 'errorMessages.ts translates the templates in one call');
    });

    it('has every message in l10n/bundle.l10n.json and l10n/bundle.l10n.es.json, and no unused key', () => {
      const messages = new Set(calls.map((c) => c.message!));
      const missing = (bundle: Strings) =>
        calls.filter((c) => !(c.message! in bundle)).map((c) => `${c.file}:${c.line} ${JSON.stringify(c.message)}`);
      assert.deepEqual(missing(bundleEn), [], 'missing from bundle.l10n.json');
      assert.deepEqual(missing(bundleEs), [], 'missing from bundle.l10n.es.json');
      assert.deepEqual(
        Object.keys(bundleEn).filter((k) => !messages.has(k)),
        [],
        'unused keys of bundle.l10n.json',
      );
      for (const [key, value] of Object.entries(bundleEn)) {
        assert.equal(value, key, 'the English bundle maps each message to itself');
      }
      assertSameShape(bundleEn, bundleEs, 'bundle.l10n');
    });

    it('keeps inline code such as `${prompt}` or setting ids untranslated', () => {
      for (const [en, es] of [
        [nlsEn, nlsEs],
        [bundleEn, bundleEs],
      ]) {
        for (const key of Object.keys(en)) {
          assert.equal(inlineCode(es[key] ?? ''), inlineCode(en[key]), `inline code of "${key}"`);
        }
      }
    });

    it('passes no plain string literal to messages, input boxes and quick picks in src/ui and src/host', () => {
      const offenders: string[] = [];
      const patterns = [
        /\bshow(?:Information|Warning|Error)Message\(\s*['"`]/g,
        /\bshowInputBox\(\{[^}]*?\b(?:title|prompt|placeHolder|value):\s*['"`][A-Za-z]/g,
        /\bshowQuickPick\([^;]*?\b(?:title|placeHolder):\s*['"`][A-Za-z]/g,
        /\bshowQuickPick\(\s*\[\s*['"`]/g,
        /\b(?:label|detail|description|tooltip|placeHolder|prompt):\s*['"`][A-Za-z][^'"`]*\s[^'"`]*['"`]/g,
        /\.(?:text|tooltip|name|description|title)\s*=\s*['"`][A-Za-z]/g,
        /\bcreate(?:OutputChannel|Terminal|WebviewPanel)\((?:[\w.]+,\s*)?['"`][A-Z][a-z]+ /g,
        /\bname:\s*`[A-Za-z][^`]*\$\{/g,
      ];
      // The log channel is named after the product, which is not translated.
      const allowed = (match: string) => /^createOutputChannel\('Parallel $/.test(match);
      for (const file of [...sourceFiles('src/ui'), ...sourceFiles('src/host')]) {
        const text = readFileSync(join(repoRoot, file), 'utf8');
        for (const pattern of patterns) {
          for (const m of text.matchAll(pattern)) {
            const where = `${file}:${text.slice(0, m.index).split('\n').length}`;
            if (!allowed(m[0])) {
              offenders.push(`${where} ${m[0]}`);
            }
          }
        }
      }
      assert.deepEqual(offenders, []);
    });
  });
});

describe('the l10n.t message reader', () => {
  it('reads escapes in single-quoted, double-quoted and template literals', () => {
    assert.equal(readLiteral(`'it\\'s \\u00e9 {0}'`, 0), "it's é {0}");
    assert.equal(readLiteral(`"a\\nb"`, 0), 'a\nb');
    assert.equal(readLiteral('`plain`', 0), 'plain');
    assert.equal(readLiteral('`x ${y}`', 0), undefined);
  });
});
