// Restricted Mode as package.json declares it (`untrustedWorkspaces.supported: "limited"`): in an
// untrusted folder only the commands of constants.ts restrictedModeCommands exist (extension.ts
// registers no other), so every menu, palette entry and keybinding of any other command asks for
// isWorkspaceTrusted, and the Agents view welcomes the user with the reason and a trust button.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { restrictedModeCommands } from '../../src/constants';
import { repoRoot } from '../harness/paths';

interface Entry {
  readonly command: string;
  readonly when?: string;
}

interface Manifest {
  capabilities: {
    untrustedWorkspaces: { supported: unknown; description?: string; restrictedConfigurations?: string[] };
  };
  contributes: {
    commands: Entry[];
    menus: Record<string, Entry[]>;
    keybindings: Entry[];
    viewsWelcome: { view: string; contents: string; when?: string }[];
    walkthroughs: {
      steps: { id: string; description: string; when?: string; completionEvents?: string[] }[];
    }[];
    configuration: { properties: Record<string, { scope?: string }> };
  };
}

const read = <T>(file: string): T => JSON.parse(readFileSync(join(repoRoot, file), 'utf8')) as T;

/** True when `when` can only hold in a trusted workspace: `isWorkspaceTrusted` is a top-level conjunct (or `false`). */
function requiresTrust(when: string | undefined): boolean {
  return when === 'false' || when === 'isWorkspaceTrusted' || /^isWorkspaceTrusted && /.test(when ?? '');
}

describe('Restricted Mode in package.json', () => {
  const pkg = read<Manifest>('package.json');
  const nls = read<Record<string, string>>('package.nls.json');
  const contributes = pkg.contributes;
  const running = contributes.commands.map((c) => c.command).filter((c) => !restrictedModeCommands.includes(c));

  it('declares limited support, with a reason, and names the commands that stay as contributed ones', () => {
    const untrusted = pkg.capabilities.untrustedWorkspaces;
    assert.equal(untrusted.supported, 'limited');
    assert.match(nls[untrusted.description?.replace(/%/g, '') ?? ''] ?? '', /Restricted Mode/);
    assert.deepEqual(
      restrictedModeCommands.filter((c) => !contributes.commands.some((x) => x.command === c)),
      [],
    );
    assert.ok(running.length > 20, `${running.length} commands that run something`);
  });

  it('restricts every setting that says what is executed or where it writes', () => {
    const restricted = pkg.capabilities.untrustedWorkspaces.restrictedConfigurations ?? [];
    const settings = Object.entries(contributes.configuration.properties);
    for (const id of restricted) {
      assert.ok(
        settings.some(([name]) => name === id),
        `${id} is a contributed setting`,
      );
    }
    const machine = settings.filter(([, s]) => s.scope === 'machine').map(([name]) => name);
    for (const id of [...machine, 'parallelAgents.profiles', 'parallelAgents.setupCommand']) {
      assert.ok(restricted.includes(id), `${id} is in restrictedConfigurations`);
    }
  });

  it('hides every command that runs something while untrusted: palette, menus and keybindings', () => {
    const palette = contributes.menus.commandPalette;
    assert.deepEqual(
      running.filter((c) => !palette.some((e) => e.command === c && requiresTrust(e.when))),
      [],
      'commands shown in the palette of an untrusted workspace',
    );
    const menus = Object.entries(contributes.menus).flatMap(([menu, entries]) => entries.map((e) => ({ ...e, menu })));
    assert.deepEqual(
      [...menus, ...contributes.keybindings.map((k) => ({ ...k, menu: 'keybindings' }))]
        .filter((e) => !restrictedModeCommands.includes(e.command) && !requiresTrust(e.when))
        .map((e) => `${e.menu}: ${e.command} when ${e.when}`),
      [],
    );
    assert.ok(menus.length > 50, `${menus.length} menu entries checked`);
  });

  it('welcomes an untrusted folder with the reason and Manage Workspace Trust; the other welcomes need trust', () => {
    const welcomes = contributes.viewsWelcome.filter((w) => w.view === 'parallelAgents.agents');
    const untrusted = welcomes.filter((w) => w.when === '!isWorkspaceTrusted');
    assert.equal(untrusted.length, 1);
    const text = nls[untrusted[0].contents.replace(/%/g, '')];
    assert.match(text, /Restricted Mode/);
    assert.match(text, /\n\[\$\(shield\) Manage Workspace Trust\]\(command:workbench\.trust\.manage\)$/);
    for (const welcome of welcomes.filter((w) => w !== untrusted[0])) {
      assert.ok(requiresTrust(welcome.when), `${welcome.contents} asks for trust (${welcome.when})`);
    }
  });

  it('shows the walkthrough steps that run something only when trusted, and a Trust step only when not', () => {
    const steps = contributes.walkthroughs.flatMap((w) => w.steps);
    const trust = steps.filter((s) => s.when === '!isWorkspaceTrusted');
    assert.deepEqual(
      trust.map((s) => s.id),
      ['trustFolder'],
    );
    assert.match(nls[trust[0].description.replace(/%/g, '')], /\(command:workbench\.trust\.manage\)$/);
    assert.deepEqual(trust[0].completionEvents, ['onContext:isWorkspaceTrusted']);
    const others = steps.filter((s) => s !== trust[0]);
    assert.ok(others.length >= 5, `${others.length} other steps`);
    for (const step of others) {
      const links = nls[step.description.replace(/%/g, '')].match(/\(command:parallelAgents\.[^)]+\)/g) ?? [];
      assert.ok(links.length > 0 || step.id === 'configureProfile', `${step.id} has a button that runs a command`);
      assert.ok(requiresTrust(step.when), `${step.id} asks for trust (when: ${step.when})`);
    }
  });
});
