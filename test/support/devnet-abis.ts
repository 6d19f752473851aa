// Human-readable ABIs for reading and driving the devnet's contracts in tests.
import { parseAbi } from 'viem';

const POOL_KEY = '(address currency0, address currency1, uint24 fee, int24 tickSpacing, address hooks)';

export const stockTokenAbi = parseAbi([
  'function decimals() view returns (uint8)',
  'function symbol() view returns (string)',
  'function uiMultiplier() view returns (uint256)',
  'function balanceOf(address) view returns (uint256)',
  'function approve(address spender, uint256 value) returns (bool)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function owner() view returns (address)',
  'function supportsInterface(bytes4) view returns (bool)',
]);

export const aggregatorAbi = parseAbi([
  'function decimals() view returns (uint8)',
  'function description() view returns (string)',
  'function version() view returns (uint256)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
  'function getRoundData(uint80) view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
]);

export const stateViewAbi = parseAbi([
  'function getSlot0(bytes32 poolId) view returns (uint160 sqrtPriceX96, int24 tick, uint24 protocolFee, uint24 lpFee)',
  'function getLiquidity(bytes32 poolId) view returns (uint128 liquidity)',
]);

/** SwapHelper plus the errors a sell can revert with, so viem decodes them by name. */
export const swapHelperAbi = parseAbi([
  `function swapExactIn(address manager, ${POOL_KEY} key, bool zeroForOne, uint256 amountIn, uint256 minAmountOut, address recipient) returns (uint256 paid, uint256 amountOut, uint256 received)`,
  `function swapExactInFromHelper(address manager, ${POOL_KEY} key, bool zeroForOne, uint256 amountIn, uint256 minAmountOut, address recipient) returns (uint256 paid, uint256 amountOut, uint256 received)`,
  'error TooLittleReceived(uint256 amountOut, uint256 minAmountOut)',
  'error TransferNotAllowed()',
  'error EnforcedPause()',
  'error AccountBlacklisted(address account)',
]);

export const hostileAbi = parseAbi([
  'function owner() view returns (address)',
  'function paused() view returns (bool)',
  'function isBlacklisted(address) view returns (bool)',
  'function isFeeExempt(address) view returns (bool)',
  'function FEE_BPS() view returns (uint256)',
  'function poolManager() view returns (address)',
  'function getOwners() view returns (address[])',
  'function getThreshold() view returns (uint256)',
  'function ERC20_STORAGE() view returns (bytes32)',
  'function name() view returns (string)',
]);

export const stablecoinAbi = parseAbi([
  'function decimals() view returns (uint8)',
  'function balanceOf(address) view returns (uint256)',
  'function approve(address spender, uint256 value) returns (bool)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'error AuthorizationAlreadyUsed()',
]);

/** EIP-3009's typed-data struct, signed by the payer. */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
] as const;

const TRADE_PERMIT = '(address wallet, address token, uint8 side, uint256 maxAmount, uint256 maxNotionalUsdCents, uint64 expiry, uint64 auditSeq, bytes32 auditHash, uint256 nonce)';

/** GuardedSwapRouter and the guard's errors, which a swap under a refused permit reverts with. */
export const guardedSwapRouterAbi = parseAbi([
  `function swapWithPermit(${TRADE_PERMIT} permit, bytes signature, address manager, ${POOL_KEY} key, bool zeroForOne, uint256 amountIn, uint256 minAmountOut) returns (uint256 amountOut)`,
  'error PermitMissing()',
  'error PermitExpired(uint64 expiry, uint256 nowSeconds)',
  'error PermitNonceUsed(uint256 nonce)',
  'error PermitWalletMismatch(address wallet, address permitted)',
  'error PermitTokenMismatch(address token, address permitted)',
  'error PermitSideMismatch(uint8 side, uint8 permitted)',
  'error PermitAmountExceeded(uint256 amount, uint256 maxAmount)',
  'error PermitSignatureInvalid()',
  'error PermitCallerNotAllowed(address caller, address wallet)',
]);

export const tradePermitGuardAbi = parseAbi([
  'function signer() view returns (address)',
  'function router() view returns (address)',
  `function consume(${TRADE_PERMIT} permit, bytes signature, address wallet, address token, uint8 side, uint256 amount)`,
  'error PermitCallerNotAllowed(address caller, address wallet)',
  'error PermitWalletMismatch(address wallet, address permitted)',
  `function nonceUsed(uint256 nonce) view returns (bool)`,
  `function hashPermit(${TRADE_PERMIT} permit) view returns (bytes32)`,
]);
