// SPDX-License-Identifier: MIT
// An owner-mintable 18-decimal ERC-20: the base of the devnet's service, stock and hostile tokens.
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @dev ERC20 comes first in the inheritance list so its state takes slots 0-4
/// (balances in slot 0, allowances in slot 1) and Ownable's owner slot 5: the
/// plain layout balance simulators probe first.
contract MintableToken is ERC20, Ownable {
    error LengthMismatch();

    constructor(string memory name_, string memory symbol_, address owner_) ERC20(name_, symbol_) Ownable(owner_) {}

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    /// @notice One transaction funds many holders, which keeps devnet start-up short.
    function mintBatch(address[] calldata to, uint256[] calldata amounts) external onlyOwner {
        if (to.length != amounts.length) revert LengthMismatch();
        for (uint256 i; i < to.length; ++i) {
            _mint(to[i], amounts[i]);
        }
    }
}
