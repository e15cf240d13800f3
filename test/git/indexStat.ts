// Writes stat data into an index entry, as git would after seeing the file unchanged: what makes a
// test of git's racy-entry rule deterministic (a change within the same clock tick as the index was
// written leaves the file's stat data as the entry has it).
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';

/**
 * Gives the entry of `gitPath` in `indexFile` the stat data `file` has now (times, device, inode,
 * owner, size), keeping its object name, and writes the index's checksum again. Index versions 2
 * and 3 of a SHA-1 repository.
 */
export function statIntoIndex(indexFile: string, gitPath: string, file: string): void {
  const index = fs.readFileSync(indexFile);
  assert.equal(index.toString('latin1', 0, 4), 'DIRC');
  const version = index.readUInt32BE(4);
  assert.ok(version === 2 || version === 3, `index version ${version}`);
  const st = fs.statSync(file, { bigint: true });
  const u32 = (n: bigint) => Number(n & 0xffffffffn);
  const fields = [
    st.ctimeNs / 1_000_000_000n,
    st.ctimeNs % 1_000_000_000n,
    st.mtimeNs / 1_000_000_000n,
    st.mtimeNs % 1_000_000_000n,
    st.dev,
    st.ino,
  ];
  let offset = 12;
  let found = false;
  for (let i = 0; i < index.readUInt32BE(8); i++) {
    const flags = index.readUInt16BE(offset + 60);
    const extended = version === 3 && (flags & 0x4000) !== 0;
    const nameStart = offset + 62 + (extended ? 2 : 0);
    const nameLength = flags & 0xfff;
    if (index.toString('utf8', nameStart, nameStart + nameLength) === gitPath) {
      fields.forEach((value, k) => index.writeUInt32BE(u32(value), offset + 4 * k));
      // Mode (offset 24) stays; then uid, gid, size.
      index.writeUInt32BE(u32(st.uid), offset + 28);
      index.writeUInt32BE(u32(st.gid), offset + 32);
      index.writeUInt32BE(u32(st.size), offset + 36);
      found = true;
    }
    offset += (nameStart - offset + nameLength + 8) & ~7;
  }
  assert.ok(found, `${gitPath} is in the index`);
  createHash('sha1')
    .update(index.subarray(0, index.length - 20))
    .digest()
    .copy(index, index.length - 20);
  fs.writeFileSync(indexFile, index);
}
