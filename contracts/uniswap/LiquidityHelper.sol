// SPDX-License-Identifier: MIT
// Adds and removes Uniswap v4 liquidity for the devnet: the unlock callback a position change needs.
pragma solidity ^0.8.24;

import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {IUnlockCallback} from "@uniswap/v4-core/src/interfaces/callback/IUnlockCallback.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {BalanceDelta} from "@uniswap/v4-core/src/types/BalanceDelta.sol";
import {ModifyLiquidityParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";
import {PoolPayments} from "./PoolPayments.sol";

contract LiquidityHelper is IUnlockCallback {
    IPoolManager public immutable manager;

    struct Call {
        address payer;
        PoolKey key;
        ModifyLiquidityParams params;
    }

    error NotPoolManager();
    error ShortPayment(uint256 owed, uint256 paid);

    constructor(IPoolManager manager_) {
        manager = manager_;
    }

    /// @notice Changes the caller's position; the caller pays (approve this helper) or receives.
    /// @dev The position salt is the caller's address, so nobody can withdraw another's liquidity.
    function modifyLiquidity(PoolKey calldata key, int24 tickLower, int24 tickUpper, int256 liquidityDelta)
        external
        returns (BalanceDelta delta)
    {
        ModifyLiquidityParams memory params =
            ModifyLiquidityParams(tickLower, tickUpper, liquidityDelta, bytes32(uint256(uint160(msg.sender))));
        bytes memory result = manager.unlock(abi.encode(Call(msg.sender, key, params)));
        delta = abi.decode(result, (BalanceDelta));
    }

    function unlockCallback(bytes calldata raw) external returns (bytes memory) {
        if (msg.sender != address(manager)) revert NotPoolManager();
        Call memory call = abi.decode(raw, (Call));
        (BalanceDelta delta,) = manager.modifyLiquidity(call.key, call.params, "");
        _resolve(call.key.currency0, delta.amount0(), call.payer);
        _resolve(call.key.currency1, delta.amount1(), call.payer);
        return abi.encode(delta);
    }

    /// @dev A negative delta is owed to the manager, a positive one is owed to the payer.
    function _resolve(Currency currency, int128 amount, address payer) private {
        if (amount < 0) {
            uint256 owed = uint256(uint128(-amount));
            uint256 paid = PoolPayments.pay(manager, currency, payer, owed);
            if (paid != owed) revert ShortPayment(owed, paid);
        } else if (amount > 0) {
            manager.take(currency, payer, uint256(uint128(amount)));
        }
    }
}
