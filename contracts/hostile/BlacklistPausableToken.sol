// SPDX-License-Identifier: MIT
// A token whose owner can freeze any holder and pause all transfers: a custody risk to report.
pragma solidity ^0.8.24;

import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {MintableToken} from "../tokens/MintableToken.sol";

contract BlacklistPausableToken is MintableToken, Pausable {
    mapping(address account => bool) public isBlacklisted;

    event Blacklisted(address indexed account);
    event UnBlacklisted(address indexed account);

    error AccountBlacklisted(address account);

    constructor(string memory name_, string memory symbol_, address owner_) MintableToken(name_, symbol_, owner_) {}

    function blacklist(address account) external onlyOwner {
        isBlacklisted[account] = true;
        emit Blacklisted(account);
    }

    function unBlacklist(address account) external onlyOwner {
        isBlacklisted[account] = false;
        emit UnBlacklisted(account);
    }

    function pause() external onlyOwner {
        _pause();
    }

    function unpause() external onlyOwner {
        _unpause();
    }

    function _update(address from, address to, uint256 value) internal override whenNotPaused {
        if (isBlacklisted[from]) revert AccountBlacklisted(from);
        if (isBlacklisted[to]) revert AccountBlacklisted(to);
        super._update(from, to, value);
    }
}
