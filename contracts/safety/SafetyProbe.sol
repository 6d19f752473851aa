// SPDX-License-Identifier: MIT
// What a token-safety check runs at throwaway holders: buy through a v4 pool, sell back, or pass tokens on.
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {SwapHelper} from "../uniswap/SwapHelper.sol";

/// @dev Like SwapHelper (which it extends), it has no constructor, immutables or persistent
/// state, so its runtime code works at any address: an eth_simulateV1 places it at several
/// fresh addresses with a code override. Each holder acquires the token the way a buyer does
/// (the pool, or a real holder, sends it) and then disposes of it; every leg reports what
/// really moved, so taxes and blocks are measured rather than guessed.
contract SafetyProbe is SwapHelper {
    error NothingToDispose();
    error TransferReturnedFalse();

    /// @notice Buys the token with `quoteIn` of the pool's other currency, held by this address.
    /// @return amountOut What the pool paid out.
    /// @return received What arrived here.
    function buy(IPoolManager manager, PoolKey calldata key, bool tokenIsCurrency0, uint256 quoteIn)
        external
        returns (uint256 amountOut, uint256 received)
    {
        (, amountOut, received) = this.swapExactInFromHelper(manager, key, !tokenIsCurrency0, quoteIn, 0, address(this));
    }

    /// @notice Sells everything this address holds of the token back into the pool.
    /// @return amountIn What was offered.
    /// @return paid What the pool received.
    /// @return received What arrived here of the other currency.
    function sellAll(IPoolManager manager, PoolKey calldata key, bool tokenIsCurrency0)
        external
        returns (uint256 amountIn, uint256 paid, uint256 received)
    {
        IERC20 token = IERC20(Currency.unwrap(tokenIsCurrency0 ? key.currency0 : key.currency1));
        amountIn = token.balanceOf(address(this));
        if (amountIn == 0) revert NothingToDispose();
        (paid,, received) = this.swapExactInFromHelper(manager, key, tokenIsCurrency0, amountIn, 0, address(this));
    }

    /// @notice Transfers everything this address holds to `to`.
    /// @return sent What was sent.
    /// @return arrived What `to`'s balance grew by.
    function sendAll(IERC20 token, address to) external returns (uint256 sent, uint256 arrived) {
        sent = token.balanceOf(address(this));
        if (sent == 0) revert NothingToDispose();
        uint256 before = token.balanceOf(to);
        // Low level: tokens that return nothing (USDT style) pass, tokens that return false fail.
        (bool ok, bytes memory answer) = address(token).call(abi.encodeCall(IERC20.transfer, (to, sent)));
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(answer, 32), mload(answer))
            }
        }
        if (answer.length >= 32 && !abi.decode(answer, (bool))) revert TransferReturnedFalse();
        arrived = token.balanceOf(to) - before;
    }
}
