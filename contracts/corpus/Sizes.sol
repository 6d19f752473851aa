// SPDX-License-Identifier: MIT
// Corpus tokens whose traps read the size of a sell: a buyer of 100 USD never reaches the limit, a holder of a sizeable stake does.
pragma solidity ^0.8.24;

import {CorpusToken} from "./CorpusToken.sol";

error SellTooLarge();

/// A holder may send at most 1,000 tokens at a time: ten times what a buyer of 100 USD holds, and
/// a fiftieth of the pool's side.
contract SzSellSizeTrap is CorpusToken {
    constructor(address pm) CorpusToken("Sz Sell Size Trap", "SZST", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from) && v > 1_000 ether) revert SellTooLarge();
        super._update(from, to, v);
    }
}

/// The safe control: it notes the largest send it has seen and stops nobody.
contract SzSizeReaderClean is CorpusToken {
    uint256 public largestSend;
    constructor(address pm) CorpusToken("Sz Size Reader Clean", "SZSR", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (v > largestSend) largestSend = v;
        super._update(from, to, v);
    }
}
