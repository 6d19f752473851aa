// SPDX-License-Identifier: MIT
// An execution router that swaps on a Uniswap v4 pool only under a TradePermit the guard accepts.
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {SwapHelper} from "../uniswap/SwapHelper.sol";
import {TradePermitGuard} from "./TradePermitGuard.sol";

/// @notice Swaps exactly `amountIn` on a v4 pool, paying from and delivering to the caller. Paying in
/// the permit's token is a sell (side 1) of what the pool received; otherwise it is a buy (side 0) of
/// what the pool paid out. The guard judges that leg, and if the permit does not cover it the whole
/// swap reverts. The guard trusts this router (its `router`) to consume only for the router's own
/// caller: the wallet is always `msg.sender`, never an argument.
contract GuardedSwapRouter {
    using SafeERC20 for IERC20;

    TradePermitGuard public immutable guard;
    SwapHelper public immutable helper;

    constructor(TradePermitGuard permitGuard, SwapHelper swapHelper) {
        guard = permitGuard;
        helper = swapHelper;
    }

    function swapWithPermit(
        TradePermitGuard.TradePermit calldata permit,
        bytes calldata signature,
        IPoolManager manager,
        PoolKey calldata key,
        bool zeroForOne,
        uint256 amountIn,
        uint256 minAmountOut
    ) external returns (uint256 amountOut) {
        uint256 paid;
        (paid, amountOut) = _swap(manager, key, zeroForOne, amountIn, minAmountOut);
        // The swap says the side: paying in the permit's token sells it, anything else buys its output.
        address input = Currency.unwrap(zeroForOne ? key.currency0 : key.currency1);
        bool sell = input == permit.token;
        address asset = sell ? input : Currency.unwrap(zeroForOne ? key.currency1 : key.currency0);
        _consume(permit, signature, asset, sell ? 1 : 0, sell ? paid : amountOut);
    }

    function _consume(
        TradePermitGuard.TradePermit calldata permit,
        bytes calldata signature,
        address asset,
        uint8 side,
        uint256 moved
    ) private {
        guard.consume(permit, signature, msg.sender, asset, side, moved);
    }

    function _swap(IPoolManager manager, PoolKey calldata key, bool zeroForOne, uint256 amountIn, uint256 minAmountOut)
        private
        returns (uint256 paid, uint256 amountOut)
    {
        IERC20 input = IERC20(Currency.unwrap(zeroForOne ? key.currency0 : key.currency1));
        input.safeTransferFrom(msg.sender, address(this), amountIn);
        input.forceApprove(address(helper), amountIn);
        (paid, amountOut,) = helper.swapExactIn(manager, key, zeroForOne, amountIn, minAmountOut, msg.sender);
    }
}
