/** Branch and folder names derived from a task title: flat, lowercase ASCII, safe for refs and paths. */

const maxSlugLength = 40;

export function slugify(title: string): string {
  const ascii = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const trimmed = ascii.slice(0, maxSlugLength).replace(/-+$/g, '');
  return trimmed === '' ? 'agent' : trimmed;
}

/** First candidate among slug, slug-2, slug-3, ... that `taken` rejects for neither branch nor folder. */
export function uniqueSlug(base: string, taken: (candidate: string) => boolean): string {
  if (!taken(base)) {
    return base;
  }
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken(candidate)) {
      return candidate;
    }
  }
}

export function titleFromPrompt(prompt: string): string {
  const firstLine = prompt.split(/\r?\n/).find((line) => line.trim() !== '') ?? '';
  const clean = firstLine.trim();
  // By code points, so an emoji is never cut in half.
  const chars = Array.from(clean);
  return chars.length > 60 ? `${chars.slice(0, 57).join('')}...` : clean;
}

/** Whether a branch prefix is usable: no empty segments and nothing git refuses in a ref. */
export function isValidBranchPrefix(prefix: string): boolean {
  // Git refuses a branch name that starts with "-" (it would read as an option).
  return /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(prefix) && !/^-|(^|\/)\.|\.\.|\.lock(\/|$)|\.$/.test(prefix);
}
