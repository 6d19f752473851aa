// SPDX-License-Identifier: MIT
// Corpus fee-on-transfer tokens: several rates, buy-only and sell-only, fixed and owner-settable.
pragma solidity ^0.8.24;

import {CorpusToken} from "./CorpusToken.sol";

/// @dev A fee in basis points on buys (the pool sends) and sells (the pool receives), paid to the owner.
abstract contract FeeCorpusToken is CorpusToken {
    uint256 public buyFeeBps;
    uint256 public sellFeeBps;

    constructor(string memory n, string memory s, address pm, uint256 buyBps, uint256 sellBps) CorpusToken(n, s, pm) {
        buyFeeBps = buyBps;
        sellFeeBps = sellBps;
    }

    function _update(address from, address to, uint256 v) internal override {
        uint256 bps = from == poolManager && _holder(to) ? buyFeeBps : to == poolManager && _holder(from) ? sellFeeBps : 0;
        uint256 fee = (v * bps) / 10_000;
        if (fee > 0) super._update(from, owner(), fee);
        super._update(from, to, v - fee);
    }
}

contract Fee1 is FeeCorpusToken {
    constructor(address pm) FeeCorpusToken("Fee 1%", "FEE1", pm, 100, 100) {}
}

contract Fee3 is FeeCorpusToken {
    constructor(address pm) FeeCorpusToken("Fee 3%", "FEE3", pm, 300, 300) {}
}

contract Fee5Settable is FeeCorpusToken {
    constructor(address pm) FeeCorpusToken("Fee 5% Settable", "FEE5", pm, 500, 500) {}
    function setFees(uint256 buyBps, uint256 sellBps) external onlyOwner {
        (buyFeeBps, sellFeeBps) = (buyBps, sellBps);
    }
}

contract Fee10SellOnly is FeeCorpusToken {
    constructor(address pm) FeeCorpusToken("Fee 10% Sell", "FESL", pm, 0, 1000) {}
}

contract Fee10BuyOnly is FeeCorpusToken {
    constructor(address pm) FeeCorpusToken("Fee 10% Buy", "FEBY", pm, 1000, 0) {}
}

contract Fee25 is FeeCorpusToken {
    constructor(address pm) FeeCorpusToken("Fee 25%", "FE25", pm, 2500, 2500) {}
}

contract Fee35 is FeeCorpusToken {
    constructor(address pm) FeeCorpusToken("Fee 35%", "FE35", pm, 3500, 3500) {}
}

/// No fee today; the owner may set any fee tomorrow.
contract FeeSetterZero is FeeCorpusToken {
    constructor(address pm) FeeCorpusToken("Fee Setter Zero", "FESZ", pm, 0, 0) {}
    function setTaxFee(uint256 bps) external onlyOwner {
        (buyFeeBps, sellFeeBps) = (bps, bps);
    }
}

/// A 2% fee whose setter nobody can call once the owner renounces (the corpus renounces it).
contract Fee2Renounced is FeeCorpusToken {
    constructor(address pm) FeeCorpusToken("Fee 2% Renounced", "FE2R", pm, 200, 200) {}
    function setSellFee(uint256 bps) external onlyOwner {
        sellFeeBps = bps;
    }
}
