// Runtime code the safety simulation places at throwaway holders: SafetyProbe, compiled from contracts/.
import type { Hex } from 'viem';

export interface ProbeCode {
  safetyProbe(): Promise<Hex>;
}

/** SafetyProbe's runtime code, compiled (or read from the solc cache) by the service's assembly. */
export type CompiledProbe = () => Promise<Hex>;

/**
 * Loaded once (a failure is retried on the next call). SafetyProbe has no constructor,
 * immutables or state, so its runtime code works at any address on any chain, and no chain
 * needs to carry it.
 */
export class CompiledProbeCode implements ProbeCode {
  private loaded: Promise<Hex> | null = null;

  constructor(private readonly compiled: CompiledProbe) {}

  safetyProbe(): Promise<Hex> {
    if (this.loaded === null) {
      this.loaded = this.compiled().catch((error: unknown) => {
        this.loaded = null;
        throw error;
      });
    }
    return this.loaded;
  }
}
