// Compiles contracts/ with solc-js, caching the output under a hash of everything that shapes it.
import { createHash } from 'node:crypto';
import { closeSync, constants, openSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Abi, Hex } from 'viem';
import { tryExclusiveLock } from '../../store/flock.js';
import { importResolver, importedPackageVersions, packageVersion, readContractSources } from './sources.js';

export interface Artifact {
  abi: Abi;
  bytecode: Hex;
  deployedBytecode: Hex;
}
export type Artifacts = Record<string, Artifact>;

export interface CompileResult {
  artifacts: Artifacts;
  cacheHit: boolean;
  cacheFile: string;
  ms: number;
}

interface SolcContract {
  abi: Abi;
  evm: { bytecode: { object: string }; deployedBytecode: { object: string } };
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, SolcContract>>;
}

type Sources = Record<string, { content: string }>;

/** Bumped when the cached file's shape changes, so old caches are ignored. */
const CACHE_FORMAT = 1;
const OUTPUTS = ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'];
/** Library contracts outside contracts/ that the devnet deploys as they are. */
const EXTRA_OUTPUTS: Record<string, string[]> = {
  '@openzeppelin/contracts/proxy/ERC1967/ERC1967Proxy.sol': ['ERC1967Proxy'],
};
// cancun: v4-core uses transient storage (EIP-1153), which older EVM targets reject.
const SETTINGS = { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun' } as const;

export async function compileContracts(options: {
  root: string;
  cacheDir: string;
  log?: (line: string) => void;
  /** The labelled token corpus (contracts/corpus/) instead of the devnet's contracts. */
  corpus?: boolean;
}): Promise<CompileResult> {
  const started = performance.now();
  const sources = readContractSources(options.root, options.corpus);
  const prefix = options.corpus ? 'corpus-contracts' : 'devnet-contracts';
  const cacheFile = join(options.cacheDir, `${prefix}-${cacheKey(sources).slice(0, 32)}.json`);
  const cached = await readCache(cacheFile);
  if (cached !== null) return fromCache(cacheFile, cached, started, options.log);
  // One compile per cache file on a machine: a second process that finds none waits for the first's, then reads it.
  const release = await compileLock(cacheFile, options.log);
  try {
    const compiledMeanwhile = await readCache(cacheFile);
    if (compiledMeanwhile !== null) return fromCache(cacheFile, compiledMeanwhile, started, options.log);
    options.log?.(`devnet: compiling ${Object.keys(sources).length} Solidity files with solc-js (cached afterwards)`);
    const artifacts = await runSolc(options.root, sources, options.log);
    await writeCache(cacheFile, artifacts);
    return { artifacts, cacheHit: false, cacheFile, ms: performance.now() - started };
  } finally {
    release();
  }
}

function fromCache(cacheFile: string, artifacts: Artifacts, started: number, log?: (line: string) => void): CompileResult {
  log?.(`devnet: contracts from cache ${cacheFile}`);
  return { artifacts, cacheHit: true, cacheFile, ms: performance.now() - started };
}

/** How often a process waiting for another's compile asks for the lock again. */
const LOCK_POLL_MS = 100;

/**
 * Takes `<cache file>.lock` with flock (src/store/flock.ts), asking again every LOCK_POLL_MS while another process holds it (a
 * compile takes 15 to 45 s of one core; several test files starting a devnet at once each compiled the
 * same contracts before). The file stays: a holder that dies drops the lock with it, and nothing is guessed
 * from its age or a pid. Resolves to the release.
 */
async function compileLock(cacheFile: string, log?: (line: string) => void): Promise<() => void> {
  await mkdir(dirname(cacheFile), { recursive: true });
  const fd = openSync(`${cacheFile}.lock`, constants.O_RDWR | constants.O_CREAT, 0o644);
  let told = false;
  for (;;) {
    let taken: boolean;
    try {
      taken = tryExclusiveLock(fd);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    if (taken) return () => closeSync(fd);
    if (!told) log?.(`devnet: another process is compiling these contracts; waiting for its ${cacheFile}`);
    told = true;
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}

/** Same sources, compiler, settings and imported package versions give the same output. */
function cacheKey(sources: Sources): string {
  const material = {
    format: CACHE_FORMAT,
    solc: packageVersion('solc'),
    settings: SETTINGS,
    outputs: OUTPUTS,
    extra: EXTRA_OUTPUTS,
    packages: importedPackageVersions(),
    sources,
  };
  return createHash('sha256').update(JSON.stringify(material)).digest('hex');
}

async function runSolc(root: string, sources: Sources, log?: (line: string) => void): Promise<Artifacts> {
  // Loaded only on a cache miss: soljson is large and slow to instantiate.
  const { default: solc } = await import('solc');
  const input = { language: 'Solidity', sources, settings: { ...SETTINGS, outputSelection: outputSelection(sources) } };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: importResolver(root) })) as SolcOutput;
  const problems = output.errors ?? [];
  const errors = problems.filter((problem) => problem.severity === 'error');
  if (errors.length > 0) throw new Error(`devnet: solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  if (problems.length > 0) log?.(`devnet: solc reported ${problems.length} warning(s)`);
  return collectArtifacts(output);
}

function outputSelection(sources: Record<string, unknown>): Record<string, Record<string, string[]>> {
  const selection: Record<string, Record<string, string[]>> = {};
  for (const name of Object.keys(sources)) selection[name] = { '*': OUTPUTS };
  for (const [file, contracts] of Object.entries(EXTRA_OUTPUTS)) {
    selection[file] = Object.fromEntries(contracts.map((contract) => [contract, OUTPUTS]));
  }
  return selection;
}

/** Artifacts by contract name; names must be unique because deployment looks them up by name. */
function collectArtifacts(output: SolcOutput): Artifacts {
  const artifacts: Artifacts = {};
  for (const [file, contracts] of Object.entries(output.contracts ?? {})) {
    for (const [name, contract] of Object.entries(contracts)) {
      if (artifacts[name] !== undefined) throw new Error(`devnet: contract name ${name} is defined twice (again in ${file})`);
      artifacts[name] = {
        abi: contract.abi,
        bytecode: `0x${contract.evm.bytecode.object}`,
        deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
      };
    }
  }
  return artifacts;
}

/** A missing or unreadable cache is a miss, never an error: compiling again repairs it. */
async function readCache(file: string): Promise<Artifacts | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Artifacts;
  } catch {
    return null;
  }
}

/** Written to a temporary name and renamed, so a concurrent start never reads half a file. */
async function writeCache(file: string, artifacts: Artifacts): Promise<void> {
  await mkdir(join(file, '..'), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(artifacts));
  await rename(temporary, file);
}
