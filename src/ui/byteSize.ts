/** A byte count as people read it: "812 bytes", "20.0 KB", "19.9 MB" (units of 1024, as VS Code shows sizes). */
export function byteSize(bytes: number): string {
  const units = ['KB', 'MB', 'GB'];
  if (bytes < 1024) {
    return `${bytes} bytes`;
  }
  let value = bytes / 1024;
  let unit = 0;
  while (Number(value.toFixed(1)) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
