// SPDX-License-Identifier: MIT
// Corpus tokens whose traps read what whole-day holds never vary: the hour of the day and the block number since a holder's buy.
pragma solidity ^0.8.24;

import {CorpusToken} from "./CorpusToken.sol";

error ClosedNow();

/// A holder may send only in the first twelve hours of each day counted from its receipt: a hold of
/// exactly 1, 7 or 30 days lands in the open half every time.
contract EvHourOfDayTrap is CorpusToken {
    mapping(address => uint256) private receivedAt;
    constructor(address pm) CorpusToken("Ev Hour Of Day Trap", "EVHD", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from) && (block.timestamp - receivedAt[from]) % 1 days >= 12 hours) revert ClosedNow();
        if (_holder(to)) receivedAt[to] = block.timestamp;
        super._update(from, to, v);
    }
}

/// A holder may send only an even number of blocks after its receipt: 7,200 blocks a day keeps
/// every whole-day hold even.
contract EvBlockParityTrap is CorpusToken {
    mapping(address => uint256) private receivedIn;
    constructor(address pm) CorpusToken("Ev Block Parity Trap", "EVBP", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from) && (block.number - receivedIn[from]) % 2 == 1) revert ClosedNow();
        if (_holder(to)) receivedIn[to] = block.number;
        super._update(from, to, v);
    }
}

/// The safe control: it notes the hour and the block parity of every transfer and stops nobody.
contract EvClockReaderClean is CorpusToken {
    uint256 public lastHour;
    uint256 public lastParity;
    constructor(address pm) CorpusToken("Ev Clock Reader Clean", "EVCR", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        lastHour = (block.timestamp % 1 days) / 1 hours;
        lastParity = block.number % 2;
        super._update(from, to, v);
    }
}
