// The sample of the Review All Changes figure, shared by the runner (plain Node) and the
// extension-host entry: the files committed at the base and the demo agent's task that changes them.

export const benchFiles = 20;
export const fileLines = 300;

export const fileName = (i: number): string => `src/module${String(i + 1).padStart(2, '0')}.ts`;

/** One line changed in the middle of each file: the demo agent's language, one step a line. */
export function prompt(): string {
  const middle = Math.floor(fileLines / 2);
  return Array.from(
    { length: benchFiles },
    (_, i) => `replace ${fileName(i)}: v${middle} = ${middle}; => v${middle} = -1;`,
  ).join('\n');
}

/** The content of each file at the base commit: `fileLines` lines, each one distinct. */
export function fileText(i: number): string {
  return Array.from({ length: fileLines }, (_, line) => `export const v${line} = ${line}; // module ${i + 1}\n`).join(
    '',
  );
}
