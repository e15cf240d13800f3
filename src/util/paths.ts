/** Path helpers on forward-slash strings, for code that may not import node:path. */
export function toForwardSlashes(p: string): string {
  return p.replace(/\\/g, '/');
}

export function joinPath(...parts: string[]): string {
  return toForwardSlashes(parts.filter((p) => p !== '').join('/')).replace(/\/{2,}/g, '/');
}

export function baseName(p: string): string {
  const clean = toForwardSlashes(p).replace(/\/+$/, '');
  return clean.slice(clean.lastIndexOf('/') + 1);
}

export function parentDir(p: string): string {
  const clean = toForwardSlashes(p).replace(/\/+$/, '');
  const i = clean.lastIndexOf('/');
  return i <= 0 ? '/' : clean.slice(0, i);
}
