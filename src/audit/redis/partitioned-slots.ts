// Where each of K audit chains lives on a Redis Cluster: a hash tag per chain chosen so the K chains' slots spread
// evenly over the slot space, and so over the primaries (ARCHITECTURE.md "Partitioned audit chains").

/** Redis Cluster's slot count (the cluster specification, "Key distribution model"). */
export const CLUSTER_SLOTS = 16_384;

/** CRC16-CCITT (XMODEM: polynomial 0x1021, initial 0), the checksum Redis Cluster hashes keys with. */
export function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** HASH_SLOT(key): CRC16 of the hash tag (the text between the first `{` and the next `}`, when not empty) or of the key, mod 16384. */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  return crc16(Buffer.from(hashed, 'utf8')) % CLUSTER_SLOTS;
}

/**
 * The hash tag of chain `p` of `partitions`: `tg:audit:<p>.<n>` with the smallest n whose slot lies in the middle half
 * of the p-th of K equal slice of the slots. A cluster made by `redis-cli --cluster create` splits the slots evenly over
 * its primaries, so with K primaries each chain lands on its own primary whichever way the boundary slots were rounded,
 * and with more or fewer primaries the chains still spread as evenly as the slices do. The plain `tg:audit:<p>` tags
 * hash where CRC16 puts them: 0 and 1 of three fall on the same primary of three.
 */
export function chainTag(p: number, partitions: number): string {
  const width = CLUSTER_SLOTS / partitions;
  const [low, high] = [(p + 0.25) * width, (p + 0.75) * width];
  for (let n = 0; ; n++) {
    const tag = `tg:audit:${p}.${n}`;
    const slot = keySlot(`{${tag}}`);
    if (slot >= low && slot < high) return tag;
  }
}
