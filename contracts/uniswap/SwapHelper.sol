// SPDX-License-Identifier: MIT
// Exact-input swaps through any Uniswap v4 PoolManager, reporting what each side really moved.
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {IUnlockCallback} from "@uniswap/v4-core/src/interfaces/callback/IUnlockCallback.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {BalanceDelta} from "@uniswap/v4-core/src/types/BalanceDelta.sol";
import {SwapParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";
import {TickMath} from "@uniswap/v4-core/src/libraries/TickMath.sol";
import {PoolPayments} from "./PoolPayments.sol";

/// @dev The input is settled BEFORE the swap and the swap sells exactly what the manager
/// received, so fee-on-transfer tokens swap instead of reverting and the shortfall shows in
/// `paid`. A token that blocks the transfer (a honeypot) reverts the whole call.
/// The manager is an argument and the contract has no constructor, immutables or persistent
/// state, so its runtime code works at any address on any chain: an eth_call can place it
/// with a code override and simulate a sell against a real PoolManager.
contract SwapHelper is IUnlockCallback {
    struct Call {
        address payer;
        address recipient;
        PoolKey key;
        bool zeroForOne;
        uint256 amountIn;
        uint256 minAmountOut;
    }

    /// @dev The manager of the swap in progress: only it may call back.
    IPoolManager private transient activeManager;

    error NotPoolManager();
    error TooLittleReceived(uint256 amountOut, uint256 minAmountOut);

    /// @notice Sells `amountIn` of the caller's input currency (approve this helper first).
    /// @return paid What the pool received (below amountIn when the token taxes transfers).
    /// @return amountOut What the pool paid out.
    /// @return received What the recipient's balance grew by (below amountOut when taxed).
    function swapExactIn(
        IPoolManager manager,
        PoolKey calldata key,
        bool zeroForOne,
        uint256 amountIn,
        uint256 minAmountOut,
        address recipient
    ) external returns (uint256 paid, uint256 amountOut, uint256 received) {
        return _run(manager, Call(msg.sender, recipient, key, zeroForOne, amountIn, minAmountOut));
    }

    /// @notice The same swap paid from this helper's own balance. Lets an eth_call that
    /// overrides the helper's token balance simulate a sell with no approval step.
    function swapExactInFromHelper(
        IPoolManager manager,
        PoolKey calldata key,
        bool zeroForOne,
        uint256 amountIn,
        uint256 minAmountOut,
        address recipient
    ) external returns (uint256 paid, uint256 amountOut, uint256 received) {
        return _run(manager, Call(address(this), recipient, key, zeroForOne, amountIn, minAmountOut));
    }

    function unlockCallback(bytes calldata raw) external returns (bytes memory) {
        IPoolManager manager = activeManager;
        if (msg.sender != address(manager) || address(manager) == address(0)) revert NotPoolManager();
        Call memory call = abi.decode(raw, (Call));
        (Currency input, Currency output) =
            call.zeroForOne ? (call.key.currency0, call.key.currency1) : (call.key.currency1, call.key.currency0);
        uint256 paid = PoolPayments.pay(manager, input, call.payer, call.amountIn);
        (uint256 spent, uint256 amountOut) = _swap(manager, call, paid);
        // A price limit can stop the swap early: hand back whatever the pool did not use.
        if (spent < paid) manager.take(input, call.payer, paid - spent);
        if (amountOut < call.minAmountOut) revert TooLittleReceived(amountOut, call.minAmountOut);
        uint256 received = _deliver(manager, output, call.recipient, amountOut);
        return abi.encode(paid, amountOut, received);
    }

    function _run(IPoolManager manager, Call memory call) private returns (uint256, uint256, uint256) {
        activeManager = manager;
        bytes memory result = manager.unlock(abi.encode(call));
        activeManager = IPoolManager(address(0));
        return abi.decode(result, (uint256, uint256, uint256));
    }

    function _swap(IPoolManager manager, Call memory call, uint256 amountIn)
        private
        returns (uint256 spent, uint256 amountOut)
    {
        uint160 limit = call.zeroForOne ? TickMath.MIN_SQRT_PRICE + 1 : TickMath.MAX_SQRT_PRICE - 1;
        BalanceDelta delta = manager.swap(call.key, SwapParams(call.zeroForOne, -int256(amountIn), limit), "");
        (int128 inDelta, int128 outDelta) =
            call.zeroForOne ? (delta.amount0(), delta.amount1()) : (delta.amount1(), delta.amount0());
        spent = uint256(uint128(-inDelta));
        amountOut = uint256(uint128(outDelta));
    }

    function _deliver(IPoolManager manager, Currency output, address recipient, uint256 amount)
        private
        returns (uint256 received)
    {
        IERC20 token = IERC20(Currency.unwrap(output));
        uint256 before = token.balanceOf(recipient);
        manager.take(output, recipient, amount);
        received = token.balanceOf(recipient) - before;
    }
}
