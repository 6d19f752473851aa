// Sends the deployment's transactions from one key in strict nonce order, then checks every receipt.
import {
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  parseGwei,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';

/** Enough for the largest deployment (PoolManager); only the gas used is charged. */
const GAS_LIMIT = 15_000_000n;
const MAX_FEE = parseGwei('20');
const PRIORITY_FEE = parseGwei('1');

/**
 * Signs locally with explicit nonce, gas and fees, so each transaction is one
 * eth_sendRawTransaction round trip (no estimate, no fee or nonce queries). Anvil
 * auto-mines each on arrival; receipts are checked once at the end, by label.
 */
export class TxSender {
  private readonly sent: { label: string; hash: Hex }[] = [];

  private constructor(
    private readonly client: PublicClient,
    private readonly account: PrivateKeyAccount,
    private readonly chainId: number,
    private nonce: number,
  ) {}

  static async open(client: PublicClient, privateKey: Hex, chainId: number): Promise<TxSender> {
    const account = privateKeyToAccount(privateKey);
    const nonce = await client.getTransactionCount({ address: account.address, blockTag: 'pending' });
    return new TxSender(client, account, chainId, nonce);
  }

  get address(): Address {
    return this.account.address;
  }

  /** The address CREATE will give the deployment `ahead` transactions after the next one (0: the next). */
  addressAhead(ahead: number): Address {
    return getContractAddress({ from: this.account.address, nonce: BigInt(this.nonce + ahead) });
  }

  /** Deploys and returns the address CREATE gives (sender, nonce), known before mining. */
  async deploy(label: string, artifact: { abi: Abi; bytecode: Hex }, args: readonly unknown[] = []): Promise<Address> {
    const address = this.addressAhead(0);
    const data = encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args: args as unknown[] });
    await this.send(label, undefined, data);
    return address;
  }

  async call(label: string, to: Address, abi: Abi, functionName: string, args: readonly unknown[] = []): Promise<void> {
    await this.send(label, to, encodeFunctionData({ abi, functionName, args: args as unknown[] }));
  }

  /** Throws naming the first transaction that reverted or never mined. */
  async confirmAll(): Promise<void> {
    const receipts = await Promise.all(
      this.sent.map(({ hash }) => this.client.waitForTransactionReceipt({ hash, pollingInterval: 20, timeout: 30_000 })),
    );
    const failed = receipts.findIndex((receipt) => receipt.status !== 'success');
    if (failed >= 0) throw new Error(`devnet: transaction "${this.sent[failed].label}" reverted (${this.sent[failed].hash})`);
    this.sent.length = 0;
  }

  private async send(label: string, to: Address | undefined, data: Hex): Promise<void> {
    const serialized = await this.account.signTransaction({
      chainId: this.chainId,
      type: 'eip1559',
      nonce: this.nonce,
      gas: GAS_LIMIT,
      maxFeePerGas: MAX_FEE,
      maxPriorityFeePerGas: PRIORITY_FEE,
      to,
      data,
    });
    this.nonce += 1;
    const hash = await this.client.request({ method: 'eth_sendRawTransaction', params: [serialized] });
    this.sent.push({ label, hash });
  }
}
