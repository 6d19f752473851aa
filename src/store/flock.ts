// The kernel's advisory lock on an open file (flock(2), through fs-ext): held while the descriptor stays open,
// dropped when it closes or its process dies, whatever PID namespace the holder is in.
import { createRequire } from 'node:module';

interface FlockBinding {
  flockSync(fd: number, flags: 'exnb'): void;
}
const { flockSync } = createRequire(import.meta.url)('fs-ext') as FlockBinding;

/**
 * Takes LOCK_EX | LOCK_NB on `fd`: true once taken, false while another open of the file holds it (a second open
 * in the same process counts as another). Any other failure throws.
 */
export function tryExclusiveLock(fd: number): boolean {
  try {
    flockSync(fd, 'exnb');
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return false;
    throw error;
  }
}
