// SPDX-License-Identifier: MIT
// Corpus tokens a buyer can buy and never sell, each by a different trap (all labelled danger).
pragma solidity ^0.8.24;

import {CorpusToken} from "./CorpusToken.sol";

error TransferNotAllowed();
error Blacklisted(address account);
error AmountOverLimit();
error CooldownActive();
error Paused();

/// Only the owner (and the pool, paying out buys) may send.
contract HpOwnerCheck is CorpusToken {
    constructor(address pm) CorpusToken("HP Owner Check", "HPOC", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from)) revert TransferNotAllowed();
        super._update(from, to, v);
    }
}

/// Only addresses the owner whitelisted may send.
contract HpWhitelist is CorpusToken {
    mapping(address => bool) public whitelisted;
    constructor(address pm) CorpusToken("HP Whitelist", "HPWL", pm) {}
    function setWhitelisted(address account, bool on) external onlyOwner { whitelisted[account] = on; }
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from) && !whitelisted[from]) revert TransferNotAllowed();
        super._update(from, to, v);
    }
}

/// Whoever buys from the pool is blacklisted on receipt.
contract HpBlacklistOnBuy is CorpusToken {
    mapping(address => bool) public isBlacklisted;
    constructor(address pm) CorpusToken("HP Blacklist On Buy", "HPBB", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (isBlacklisted[from]) revert Blacklisted(from);
        if (from == poolManager && _holder(to)) isBlacklisted[to] = true;
        super._update(from, to, v);
    }
}

/// Whoever receives the token at all is blacklisted on receipt.
contract HpBlacklistEveryReceiver is CorpusToken {
    mapping(address => bool) public isBlacklisted;
    constructor(address pm) CorpusToken("HP Blacklist Receiver", "HPBR", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (isBlacklisted[from]) revert Blacklisted(from);
        if (_holder(to)) isBlacklisted[to] = true;
        super._update(from, to, v);
    }
}

/// The same trap on a token with no pool: holders who received it can never pass it on.
contract HpBlacklistReceiverNoPool is CorpusToken {
    mapping(address => bool) public isBlacklisted;
    constructor(address pm) CorpusToken("HP Blacklist Receiver No Pool", "HPBN", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (isBlacklisted[from]) revert Blacklisted(from);
        if (_holder(to)) isBlacklisted[to] = true;
        super._update(from, to, v);
    }
}

/// Sells into the pool are capped at zero.
contract HpMaxSellZero is CorpusToken {
    uint256 public maxSell;
    constructor(address pm) CorpusToken("HP Max Sell Zero", "HPMS", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (to == poolManager && _holder(from) && v > maxSell) revert AmountOverLimit();
        super._update(from, to, v);
    }
}

/// Holders may move at most 1,000 base units per transfer: dust.
contract HpMaxTxTiny is CorpusToken {
    constructor(address pm) CorpusToken("HP Max Tx Tiny", "HPMT", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from) && v > 1000) revert AmountOverLimit();
        super._update(from, to, v);
    }
}

/// A cooldown of ten years after every receipt.
contract HpCooldownForever is CorpusToken {
    mapping(address => uint256) public lastReceived;
    constructor(address pm) CorpusToken("HP Cooldown Forever", "HPCF", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from) && block.timestamp < lastReceived[from] + 3650 days) revert CooldownActive();
        if (_holder(to)) lastReceived[to] = block.timestamp;
        super._update(from, to, v);
    }
}

/// A lock of a hundred million blocks after every receipt.
contract HpBlockLockForever is CorpusToken {
    mapping(address => uint256) public receivedAt;
    constructor(address pm) CorpusToken("HP Block Lock Forever", "HPBL", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from) && block.number < receivedAt[from] + 100_000_000) revert CooldownActive();
        if (_holder(to)) receivedAt[to] = block.number;
        super._update(from, to, v);
    }
}

/// Paused from the start for everyone but the owner: no buy, no sell.
contract HpPaused is CorpusToken {
    bool public paused = true;
    constructor(address pm) CorpusToken("HP Paused", "HPPA", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (paused && from != owner() && from != address(0)) revert Paused();
        super._update(from, to, v);
    }
}

/// Buys and wallet transfers work; only transfers into the pool (sells) are refused.
contract HpPoolOnlySellBlock is CorpusToken {
    constructor(address pm) CorpusToken("HP Pool Sell Block", "HPPS", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (to == poolManager && _holder(from)) revert TransferNotAllowed();
        super._update(from, to, v);
    }
}

/// Sells lose everything to the owner.
contract HpSellTax100 is CorpusToken {
    constructor(address pm) CorpusToken("HP Sell Tax 100", "HPT1", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (to == poolManager && _holder(from)) {
            super._update(from, owner(), v);
        } else {
            super._update(from, to, v);
        }
    }
}

/// Sells lose half to the owner.
contract HpSellTax50 is CorpusToken {
    constructor(address pm) CorpusToken("HP Sell Tax 50", "HPT5", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (to == poolManager && _holder(from)) {
            super._update(from, owner(), v / 2);
            super._update(from, to, v - v / 2);
        } else {
            super._update(from, to, v);
        }
    }
}

/// Buys lose half to the owner.
contract HpBuyTax50 is CorpusToken {
    constructor(address pm) CorpusToken("HP Buy Tax 50", "HPB5", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (from == poolManager && _holder(to)) {
            super._update(from, owner(), v / 2);
            super._update(from, to, v - v / 2);
        } else {
            super._update(from, to, v);
        }
    }
}

/// transfer() answers false, moving nothing, for every ordinary holder.
contract HpFalseReturn is CorpusToken {
    constructor(address pm) CorpusToken("HP False Return", "HPFR", pm) {}
    function transfer(address to, uint256 v) public override returns (bool) {
        if (_holder(msg.sender)) return false;
        return super.transfer(to, v);
    }
}

/// Sells work for twelve hours after launch, then never again.
contract HpTimeBomb is CorpusToken {
    uint256 public immutable tradingEnds = block.timestamp + 12 hours;
    constructor(address pm) CorpusToken("HP Time Bomb", "HPTB", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from) && block.timestamp >= tradingEnds) revert TransferNotAllowed();
        super._update(from, to, v);
    }
}

/// Holders may send only in a transaction the owner signed.
contract HpTxOrigin is CorpusToken {
    constructor(address pm) CorpusToken("HP Tx Origin", "HPTO", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        // solhint-disable-next-line avoid-tx-origin
        if (_holder(from) && tx.origin != owner()) revert TransferNotAllowed();
        super._update(from, to, v);
    }
}

/// Asks a separate guard contract, which refuses every ordinary holder.
contract HpGuard {
    address public immutable owner = msg.sender;
    function check(address from) external view {
        if (from != owner) revert TransferNotAllowed();
    }
}

contract HpExternalGuard is CorpusToken {
    HpGuard public immutable guard;
    constructor(address pm) CorpusToken("HP External Guard", "HPEG", pm) {
        guard = new HpGuard();
    }
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from)) guard.check(from);
        super._update(from, to, v);
    }
}
