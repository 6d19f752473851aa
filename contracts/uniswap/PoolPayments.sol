// SPDX-License-Identifier: MIT
// Paying a Uniswap v4 PoolManager by balance difference, shared by the devnet's helpers.
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";

library PoolPayments {
    error NativeCurrencyUnsupported();

    /// @notice Pays `amount` into the manager and returns what the manager actually received:
    /// sync -> transfer -> settle credits the balance difference, which is less than `amount`
    /// for a fee-on-transfer token. A payer equal to the calling contract pays from its own balance.
    function pay(IPoolManager manager, Currency currency, address payer, uint256 amount) internal returns (uint256 paid) {
        if (currency.isAddressZero()) revert NativeCurrencyUnsupported();
        IERC20 token = IERC20(Currency.unwrap(currency));
        manager.sync(currency);
        if (payer == address(this)) {
            SafeERC20.safeTransfer(token, address(manager), amount);
        } else {
            SafeERC20.safeTransferFrom(token, payer, address(manager), amount);
        }
        paid = manager.settle();
    }
}
