// SPDX-License-Identifier: MIT
// Enforces the service's verdicts on chain: a trade goes through only under an unexpired, unused TradePermit the service signed.
pragma solidity ^0.8.28;

import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// @notice A smart wallet or an execution router calls `consume` before (or within the same
/// transaction as) a swap. The permit is what an `allow` verdict carried; the signer is the
/// address the service publishes at /.well-known/permit-signer.json. Only the permit's wallet
/// itself, or the one router the guard was built for (which passes its own caller as the wallet),
/// may spend a permit: anyone else could otherwise cancel a permit seen in the mempool.
/// @dev The struct, its field order and the domain ("TradePermitGuard", "1") are the service's
/// src/permits/trade-permit.ts; change both together.
contract TradePermitGuard is EIP712 {
    struct TradePermit {
        address wallet;
        address token;
        uint8 side; // 0 buy, 1 sell
        uint256 maxAmount; // token base units
        uint256 maxNotionalUsdCents; // what the verdict priced; for routers that price the trade
        uint64 expiry; // Unix seconds
        uint64 auditSeq; // the verdict's audit record
        bytes32 auditHash;
        uint256 nonce;
    }

    bytes32 public constant TRADE_PERMIT_TYPEHASH = keccak256(
        "TradePermit(address wallet,address token,uint8 side,uint256 maxAmount,uint256 maxNotionalUsdCents,uint64 expiry,uint64 auditSeq,bytes32 auditHash,uint256 nonce)"
    );

    /// @notice The service's permit signer (an EOA, or a contract through ERC-1271).
    address public immutable signer;

    /// @notice The execution router trusted to consume for the wallet that called it (GuardedSwapRouter);
    /// address(0): only wallets consume their own permits.
    address public immutable router;

    /// @notice Nonces already consumed: each permit authorises one trade.
    mapping(uint256 nonce => bool) public nonceUsed;

    event PermitConsumed(address indexed wallet, uint256 indexed nonce, uint64 auditSeq, bytes32 auditHash, uint256 amount);

    error PermitMissing();
    error PermitExpired(uint64 expiry, uint256 nowSeconds);
    error PermitNonceUsed(uint256 nonce);
    error PermitWalletMismatch(address wallet, address permitted);
    error PermitTokenMismatch(address token, address permitted);
    error PermitSideMismatch(uint8 side, uint8 permitted);
    error PermitAmountExceeded(uint256 amount, uint256 maxAmount);
    error PermitSignatureInvalid();
    error PermitCallerNotAllowed(address caller, address wallet);

    constructor(address permitSigner, address trustedRouter) EIP712("TradePermitGuard", "1") {
        signer = permitSigner;
        router = trustedRouter;
    }

    /// @notice Checks the trade against the permit and spends its nonce; reverts with a named error otherwise.
    /// @param wallet Whose funds the trade moves (a router passes its caller, a smart wallet itself).
    /// @dev The caller must be `wallet` or the trusted router; `check` then requires `wallet` to be the permit's.
    function consume(
        TradePermit calldata permit,
        bytes calldata signature,
        address wallet,
        address token,
        uint8 side,
        uint256 amount
    ) external {
        if (msg.sender != wallet && msg.sender != router) revert PermitCallerNotAllowed(msg.sender, wallet);
        check(permit, signature, wallet, token, side, amount);
        nonceUsed[permit.nonce] = true;
        emit PermitConsumed(wallet, permit.nonce, permit.auditSeq, permit.auditHash, amount);
    }

    /// @notice The same checks as `consume`, without spending the nonce.
    function check(
        TradePermit calldata permit,
        bytes calldata signature,
        address wallet,
        address token,
        uint8 side,
        uint256 amount
    ) public view {
        if (signature.length == 0) revert PermitMissing();
        if (block.timestamp > permit.expiry) revert PermitExpired(permit.expiry, block.timestamp);
        if (nonceUsed[permit.nonce]) revert PermitNonceUsed(permit.nonce);
        if (wallet != permit.wallet) revert PermitWalletMismatch(wallet, permit.wallet);
        if (token != permit.token) revert PermitTokenMismatch(token, permit.token);
        if (side != permit.side) revert PermitSideMismatch(side, permit.side);
        if (amount > permit.maxAmount) revert PermitAmountExceeded(amount, permit.maxAmount);
        if (!SignatureChecker.isValidSignatureNow(signer, hashPermit(permit), signature)) revert PermitSignatureInvalid();
    }

    /// @notice The EIP-712 digest the service signs.
    function hashPermit(TradePermit calldata permit) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(TRADE_PERMIT_TYPEHASH, permit)));
    }
}
