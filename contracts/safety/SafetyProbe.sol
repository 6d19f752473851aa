// SPDX-License-Identifier: MIT
// What a token-safety check runs at throwaway holders: buy through a v4 pool, sell back (by transfer or through a router), or pass tokens on; and what it runs against the owner (TimelockProbe).
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {SwapHelper} from "../uniswap/SwapHelper.sol";
import {TimelockProbe} from "./TimelockProbe.sol";

/// @dev Like SwapHelper (which it extends), it has no constructor or immutables and needs no
/// initial state, so its runtime code works at any address: an eth_simulateV1 places it at several
/// fresh addresses with a code override. Each holder acquires the token the way a buyer does
/// (the pool, or a real holder, sends it) and then disposes of it; every leg reports what
/// really moved, so taxes and blocks are measured rather than guessed. One more copy drives
/// the token's owner contract as a timelock would be driven (TimelockProbe).
contract SafetyProbe is SwapHelper, TimelockProbe {
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

    /// @notice Sells everything through `router` the way buyers sell: approve it, and it pulls
    /// the tokens with transferFrom. A token that refuses transferFrom out of holders fails here.
    function sellAllVia(SwapHelper router, IPoolManager manager, PoolKey calldata key, bool tokenIsCurrency0)
        external
        returns (uint256 amountIn, uint256 paid, uint256 received)
    {
        IERC20 token = IERC20(Currency.unwrap(tokenIsCurrency0 ? key.currency0 : key.currency1));
        amountIn = token.balanceOf(address(this));
        if (amountIn == 0) revert NothingToDispose();
        _approve(token, address(router), amountIn);
        (paid,, received) = router.swapExactIn(manager, key, tokenIsCurrency0, amountIn, 0, address(this));
    }

    /// @notice Approves `spender` (another probe) and has it pull everything to `to` with transferFrom.
    /// @return sent What was offered.
    /// @return arrived What `to`'s balance grew by.
    function sendAllVia(SafetyProbe spender, IERC20 token, address to) external returns (uint256 sent, uint256 arrived) {
        sent = token.balanceOf(address(this));
        if (sent == 0) revert NothingToDispose();
        _approve(token, address(spender), sent);
        arrived = spender.pull(token, address(this), to, sent);
    }

    /// @notice Moves `amount` from `from` to `to` with transferFrom (this address must be approved).
    /// @return arrived What `to`'s balance grew by.
    function pull(IERC20 token, address from, address to, uint256 amount) external returns (uint256 arrived) {
        uint256 before = token.balanceOf(to);
        _call(address(token), abi.encodeCall(IERC20.transferFrom, (from, to, amount)));
        arrived = token.balanceOf(to) - before;
    }

    /// @notice Transfers everything this address holds to `to`.
    /// @return sent What was sent.
    /// @return arrived What `to`'s balance grew by.
    function sendAll(IERC20 token, address to) external returns (uint256 sent, uint256 arrived) {
        sent = token.balanceOf(address(this));
        if (sent == 0) revert NothingToDispose();
        uint256 before = token.balanceOf(to);
        _call(address(token), abi.encodeCall(IERC20.transfer, (to, sent)));
        arrived = token.balanceOf(to) - before;
    }

    function _approve(IERC20 token, address spender, uint256 amount) private {
        _call(address(token), abi.encodeCall(IERC20.approve, (spender, amount)));
    }

    /// @dev Low level: tokens that return nothing (USDT style) pass, tokens that return false fail,
    /// and a revert is passed on with its reason.
    function _call(address token, bytes memory data) private {
        (bool ok, bytes memory answer) = token.call(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(answer, 32), mload(answer))
            }
        }
        if (answer.length >= 32 && !abi.decode(answer, (bool))) revert TransferReturnedFalse();
    }
}
