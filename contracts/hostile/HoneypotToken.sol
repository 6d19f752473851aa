// SPDX-License-Identifier: MIT
// A honeypot for the token-safety checker: buying from the pool works, selling always reverts.
pragma solidity ^0.8.24;

import {MintableToken} from "../tokens/MintableToken.sol";

contract HoneypotToken is MintableToken {
    /// @notice The Uniswap v4 PoolManager: the only non-owner allowed to move tokens, so buys
    /// (the pool paying out) succeed while every holder's transfer, and so every sell, reverts.
    address public immutable poolManager;

    error TransferNotAllowed();

    constructor(string memory name_, string memory symbol_, address owner_, address poolManager_)
        MintableToken(name_, symbol_, owner_)
    {
        poolManager = poolManager_;
    }

    function _update(address from, address to, uint256 value) internal override {
        if (from != address(0) && from != owner() && from != poolManager) revert TransferNotAllowed();
        super._update(from, to, value);
    }
}
