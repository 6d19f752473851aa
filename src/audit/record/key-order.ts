// Object keys in RFC 8785 order, remembered per shape: records and facts documents have a handful of shapes.

/** One shape's keys in RFC 8785 order (UTF-16 code units, what Array#sort does with strings) with each key's JSON text and colon. */
export interface KeyOrder {
  keys: readonly string[];
  texts: readonly string[];
  /** A key holds a surrogate: the record's fast path leaves such objects to the general library. */
  surrogate: boolean;
}

interface ShapeNode {
  next: Map<string, ShapeNode>;
  order: KeyOrder | null;
}

/**
 * A trie over keys in listed order: finding a shape asks a map per key, where one string naming
 * the whole shape had to be built and hashed (issue 30). Bounded; past the bound an order is
 * computed afresh each time.
 */
const SHAPES: ShapeNode = { next: new Map(), order: null };
const MAX_SHAPE_NODES = 10_000;
let shapeNodes = 0;
/** Any UTF-16 surrogate, paired or lone: RFC 8785 writers leave such text to the general library. */
export const SURROGATE = /[\ud800-\udfff]/;

/** The keys of `object` in RFC 8785 order. */
export function keyOrder(object: object): KeyOrder {
  const keys = Object.keys(object);
  let node = SHAPES;
  for (const key of keys) {
    let child = node.next.get(key);
    if (child === undefined) {
      if (shapeNodes >= MAX_SHAPE_NODES) return sortedOrder(keys);
      child = { next: new Map(), order: null };
      node.next.set(key, child);
      shapeNodes++;
    }
    node = child;
  }
  return (node.order ??= sortedOrder(keys));
}

function sortedOrder(listed: string[]): KeyOrder {
  const keys = [...listed].sort();
  return { keys, texts: keys.map((key) => flattened(`${JSON.stringify(key)}:`)), surrogate: keys.some((key) => SURROGATE.test(key)) };
}

/**
 * `text`, its pieces copied into one run in place. V8 keeps a string built with `+` as a tree of
 * its pieces, and each hash or write of a longer text made with it walks that tree again: a text
 * kept for reuse in every record is flattened once instead (issue 30: about 1 us of the 8 a facts
 * document took to write, hash and encode). Reading a character is what makes V8 flatten it.
 */
export function flattened(text: string): string {
  text.charCodeAt(0);
  return text;
}
