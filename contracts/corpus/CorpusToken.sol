// SPDX-License-Identifier: MIT
// The base of the labelled token corpus: an 18-decimal ERC-20 whose deployer owns a million tokens and the pool's seed.
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @dev Every corpus token takes the venue's PoolManager, so traps can tell buys (the manager
/// sends) from sells (the manager receives). The owner is exempt from every trap, as in the
/// field: it must seed the pool, and its exemption is what makes a honeypot look tradeable.
abstract contract CorpusToken is ERC20, Ownable {
    address public immutable poolManager;

    constructor(string memory name_, string memory symbol_, address poolManager_) ERC20(name_, symbol_) Ownable(msg.sender) {
        poolManager = poolManager_;
        _mint(msg.sender, 1_000_000 ether);
    }

    /// @dev Neither the owner nor the pool: an ordinary holder.
    function _holder(address account) internal view returns (bool) {
        return account != owner() && account != poolManager && account != address(0);
    }
}

/// @dev The same without an owner: nobody holds any power over it.
abstract contract OwnerlessCorpusToken is ERC20 {
    address public immutable poolManager;

    constructor(string memory name_, string memory symbol_, address poolManager_) ERC20(name_, symbol_) {
        poolManager = poolManager_;
        _mint(msg.sender, 1_000_000 ether);
    }
}
