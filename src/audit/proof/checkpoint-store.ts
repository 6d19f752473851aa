// What every audit backend's checkpoint store does (src/audit/file/, src/audit/redis/): keep signed checkpoints
// so every instance serves every one, and a restart forgets none (ARCHITECTURE.md "Checkpoints and proofs").
import type { Checkpoint } from './checkpoint.js';

export interface CheckpointStore<C extends { tree_size: number } = Checkpoint> {
  latest(): Promise<C | null>;
  atSize(treeSize: number): Promise<C | null>;
  /** Keeps the checkpoint unless one of its size is kept already; resolves to the one kept. */
  add(checkpoint: C): Promise<C>;
  /**
   * Why the stored checkpoints cannot be served (a damaged line of the file store, named), or null; a store that keeps
   * its checkpoints where nothing checks them line by line leaves it out.
   */
  damage?(): string | null;
  /** The smallest stored tree_size above `size`, or null: the tree checks each stored checkpoint as it reads the log back. */
  sizeAfter?(size: number): number | null;
  close(): Promise<void>;
}

/** A stored checkpoint's JSON, or null when it is not one (a torn line, a malformed value). */
export function parseCheckpoint(text: string): Checkpoint | null {
  try {
    const value = JSON.parse(text) as Checkpoint;
    return Number.isSafeInteger(value?.tree_size) && typeof value.root_hash === 'string' ? value : null;
  } catch {
    return null;
  }
}
