// The secrets a first start generates and DATA_DIR keeps (the permit signer, the checkpoint signing key, the JWT secret):
// generated in memory at start, written by the step that waits for room, before anything is signed (ARCHITECTURE.md "A full disk at start").
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeAtomically } from './atomic-file.js';

/** A kept secret as its loader gets it: the text, and the file it is kept in (for the loader's refusal of a bad one). */
export interface KeptText {
  text: string;
  path: string;
}

/**
 * Reads each secret DATA_DIR keeps; one it lacks is generated and held in memory until `write` keeps it. A start on
 * a full disk so listens with its keys known (the routes are built with them) while nothing signs: checkpoints, permits
 * and tokens all wait for the same step, which writes these first.
 */
export class GeneratedKeys {
  /** Generated at this start and not written yet, by path. */
  private readonly unwritten = new Map<string, string>();

  constructor(private readonly dataDir: string) {}

  /** The text kept in DATA_DIR/`name`, or a new one from `generate`, held until `write`. */
  readonly kept = async (name: string, generate: () => string): Promise<KeptText> => {
    const path = join(this.dataDir, name);
    const held = this.unwritten.get(path);
    if (held !== undefined) return { text: held, path };
    try {
      return { text: (await readFile(path, 'utf8')).trim(), path };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const text = generate();
    this.unwritten.set(path, text);
    return { text, path };
  };

  /** Keeps every secret generated at this start (mode 0600, whole or not at all); a failure leaves the rest for the next call. */
  async write(): Promise<void> {
    for (const [path, text] of this.unwritten) {
      await writeAtomically(path, `${text}\n`, 0o600);
      this.unwritten.delete(path);
    }
  }
}
