// SPDX-License-Identifier: MIT
// Corpus tokens with limits a patient holder gets past (warn) or never meets at a buyer's size (safe).
pragma solidity ^0.8.24;

import {CorpusToken} from "./CorpusToken.sol";

error CooldownActive();
error AmountOverLimit();

/// Thirty seconds after a receipt before a holder may send.
contract Cooldown30s is CorpusToken {
    mapping(address => uint256) public lastReceived;
    constructor(address pm) CorpusToken("Cooldown 30s", "CD30", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from) && block.timestamp < lastReceived[from] + 30) revert CooldownActive();
        if (_holder(to)) lastReceived[to] = block.timestamp;
        super._update(from, to, v);
    }
}

/// Five blocks after a receipt before a holder may send.
contract BlockLock5 is CorpusToken {
    mapping(address => uint256) public receivedAt;
    constructor(address pm) CorpusToken("Block Lock 5", "BLK5", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from) && block.number < receivedAt[from] + 5) revert CooldownActive();
        if (_holder(to)) receivedAt[to] = block.number;
        super._update(from, to, v);
    }
}

/// At most 10,000 tokens a transfer: far above what a buyer of 100 USD moves.
contract MaxTxLimited is CorpusToken {
    constructor(address pm) CorpusToken("Max Tx Limited", "MAXT", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from) && v > 10_000 ether) revert AmountOverLimit();
        super._update(from, to, v);
    }
}

/// At most 50,000 tokens a wallet.
contract MaxWalletLimited is CorpusToken {
    constructor(address pm) CorpusToken("Max Wallet Limited", "MAXW", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        super._update(from, to, v);
        if (_holder(to) && balanceOf(to) > 50_000 ether) revert AmountOverLimit();
    }
}

/// The owner can freeze holders; nobody is frozen yet.
contract BlacklistCapable is CorpusToken {
    mapping(address => bool) public isBlacklisted;
    error AccountBlacklisted(address account);
    constructor(address pm) CorpusToken("Blacklist Capable", "BLCP", pm) {}
    function blacklist(address account) external onlyOwner { isBlacklisted[account] = true; }
    function unBlacklist(address account) external onlyOwner { isBlacklisted[account] = false; }
    function _update(address from, address to, uint256 v) internal override {
        if (isBlacklisted[from] || isBlacklisted[to]) revert AccountBlacklisted(isBlacklisted[from] ? from : to);
        super._update(from, to, v);
    }
}

/// The owner can pause every transfer; it is not paused.
contract PauseCapable is CorpusToken {
    bool public paused;
    error EnforcedPause();
    constructor(address pm) CorpusToken("Pause Capable", "PSCP", pm) {}
    function pause() external onlyOwner { paused = true; }
    function unpause() external onlyOwner { paused = false; }
    function _update(address from, address to, uint256 v) internal override {
        if (paused && from != owner()) revert EnforcedPause();
        super._update(from, to, v);
    }
}
