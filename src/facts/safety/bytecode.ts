// Static reading of EVM runtime code: the function selectors it dispatches on and the opcodes it contains.
import { getAddress, hexToBytes, type Address, type Hex } from 'viem';

export interface BytecodeScan {
  /** 4-byte selectors pushed by PUSH3/PUSH4 (the dispatcher's comparisons), as 0x-prefixed lower-case hex. */
  selectors: Set<string>;
  /** SELFDESTRUCT (0xff) appears as an instruction, not inside push data or metadata. */
  selfdestruct: boolean;
  /** DELEGATECALL (0xf4) appears as an instruction. */
  delegatecall: boolean;
  /** Some call instruction (CALL, CALLCODE, DELEGATECALL, STATICCALL) appears: without one the code can ask no other contract. */
  calls: boolean;
  /** The target of an EIP-1167 minimal proxy (clone), or null. */
  cloneOf: Address | null;
  /** Address-sized constants the code pushes (PUSH20, or an immutable's PUSH32): contracts it may call. */
  addresses: Set<Address>;
}

const PUSH1 = 0x60;
const PUSH3 = 0x62;
const PUSH4 = 0x63;
const PUSH20 = 0x73;
const PUSH32 = 0x7f;
const DELEGATECALL = 0xf4;
const CALL_OPS = new Set([0xf1, 0xf2, 0xf4, 0xfa]);
const SELFDESTRUCT = 0xff;

// EIP-1167: 363d3d373d3d3d363d73 <20-byte target> 5af43d82803e903d91602b57fd5bf3
const CLONE_PREFIX = '363d3d373d3d3d363d73';
const CLONE_SUFFIX = '5af43d82803e903d91602b57fd5bf3';

export function scanBytecode(code: Hex): BytecodeScan {
  const bytes = withoutMetadata(hexToBytes(code));
  const selectors = new Set<string>();
  let selfdestruct = false;
  let delegatecall = false;
  let calls = false;
  const addresses = new Set<Address>();
  for (let i = 0; i < bytes.length; i++) {
    const op = bytes[i];
    if (op >= PUSH1 && op <= PUSH32) {
      const size = op - PUSH1 + 1;
      // solc pushes a selector whose first byte is zero with PUSH3.
      if (op === PUSH4 || op === PUSH3) selectors.add(selectorHex(bytes.subarray(i + 1, i + 1 + size)));
      const address = op === PUSH20 || op === PUSH32 ? addressOf(bytes.subarray(i + 1, i + 1 + size)) : null;
      if (address) addresses.add(address);
      i += size;
      continue;
    }
    if (op === SELFDESTRUCT) selfdestruct = true;
    if (op === DELEGATECALL) delegatecall = true;
    if (CALL_OPS.has(op)) calls = true;
  }
  return { selectors, selfdestruct, delegatecall, calls, cloneOf: cloneTarget(code), addresses };
}

/**
 * solc appends CBOR metadata whose length is the last two bytes; its bytes are data, not
 * code, and may contain 0xff or 0xf4 by chance.
 */
function withoutMetadata(bytes: Uint8Array): Uint8Array {
  if (bytes.length < 2) return bytes;
  const length = (bytes[bytes.length - 2] << 8) | bytes[bytes.length - 1];
  const start = bytes.length - 2 - length;
  // A CBOR map header (0xa1-0xa5) where the metadata should begin.
  if (length > 0 && start >= 0 && bytes[start] >= 0xa1 && bytes[start] <= 0xa5) return bytes.subarray(0, start);
  return bytes;
}

function selectorHex(pushed: Uint8Array): string {
  const padded = new Uint8Array(4);
  padded.set(pushed.subarray(0, 4), 4 - Math.min(4, pushed.length));
  return `0x${Buffer.from(padded).toString('hex')}`;
}

/**
 * A pushed word that reads as an address: 20 bytes (or 32 with 12 leading zero bytes) whose top
 * four bytes are not all zero, so small constants and masks such as type(uint160).max are not taken.
 */
function addressOf(pushed: Uint8Array): Address | null {
  if (pushed.length !== 20 && !(pushed.length === 32 && pushed.subarray(0, 12).every((b) => b === 0))) return null;
  const word = pushed.subarray(pushed.length - 20);
  if (word.subarray(0, 4).every((b) => b === 0) || word.every((b) => b === 0xff)) return null;
  return getAddress(`0x${Buffer.from(word).toString('hex')}`);
}

function cloneTarget(code: Hex): Address | null {
  const hex = code.toLowerCase().slice(2);
  if (hex.length !== 90 || !hex.startsWith(CLONE_PREFIX) || !hex.endsWith(CLONE_SUFFIX)) return null;
  return getAddress(`0x${hex.slice(CLONE_PREFIX.length, CLONE_PREFIX.length + 40)}`);
}
