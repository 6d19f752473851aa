// SPDX-License-Identifier: MIT
// Corpus tokens whose owner powers hide under names no list knows: found only by calling them as the owner.
pragma solidity ^0.8.24;

import {CorpusToken} from "./CorpusToken.sol";

error Halted();

/// The owner can set any holder's balance down to what it names, taking the rest.
contract EvHiddenSeize is CorpusToken {
    constructor(address pm) CorpusToken("Ev Hidden Seize", "EVHS", pm) {}
    function syncAccount(address who, uint256 keep) external onlyOwner {
        uint256 held = balanceOf(who);
        if (held > keep) _update(who, owner(), held - keep);
    }
}

/// The owner can stop any holder's transfers under an innocent name.
contract EvHiddenFreeze is CorpusToken {
    mapping(address => bool) public routed;
    constructor(address pm) CorpusToken("Ev Hidden Freeze", "EVHF", pm) {}
    function setRoute(address account, bool on) external onlyOwner { routed[account] = on; }
    function _update(address from, address to, uint256 v) internal override {
        if (routed[from]) revert Halted();
        super._update(from, to, v);
    }
}

/// The owner can create supply for anyone under a name no mint list has.
contract EvHiddenMint is CorpusToken {
    constructor(address pm) CorpusToken("Ev Hidden Mint", "EVHM", pm) {}
    function reward(address to, uint256 amount) external onlyOwner { _mint(to, amount); }
}

/// The owner can switch trading off for every holder.
contract EvHiddenSwitch is CorpusToken {
    bool public live = true;
    constructor(address pm) CorpusToken("Ev Hidden Switch", "EVHW", pm) {}
    function setLive(bool on) external onlyOwner { live = on; }
    function _update(address from, address to, uint256 v) internal override {
        if (!live && _holder(from)) revert Halted();
        super._update(from, to, v);
    }
}
