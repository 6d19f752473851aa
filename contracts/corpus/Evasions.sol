// SPDX-License-Identifier: MIT
// Corpus tokens built to pass a zero-gas, transfer-only, one-day simulation: gas-price gates, transferFrom blocks, late taxes and late traps.
pragma solidity ^0.8.24;

import {CorpusToken} from "./CorpusToken.sol";

error NotNow();

/// Holders' sends revert whenever the transaction pays for gas: every real sell fails.
contract EvGasPriceGate is CorpusToken {
    constructor(address pm) CorpusToken("Ev Gas Price Gate", "EVGP", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from) && tx.gasprice > 0) revert NotNow();
        super._update(from, to, v);
    }
}

/// The same gate on the block's base fee, which a real block always has.
contract EvBaseFeeGate is CorpusToken {
    constructor(address pm) CorpusToken("Ev Base Fee Gate", "EVBF", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from) && block.basefee > 0) revert NotNow();
        super._update(from, to, v);
    }
}

/// transfer() works for everyone; transferFrom() out of an ordinary holder always reverts, so router sells fail.
contract EvTransferFromBlock is CorpusToken {
    constructor(address pm) CorpusToken("Ev TransferFrom Block", "EVTF", pm) {}
    function transferFrom(address from, address to, uint256 v) public override returns (bool) {
        if (_holder(from)) revert NotNow();
        return super.transferFrom(from, to, v);
    }
}

/// The same without a pool: holders can pass the token on only by transfer(), never through a spender.
contract EvTransferFromBlockNoPool is CorpusToken {
    constructor(address pm) CorpusToken("Ev TransferFrom Block No Pool", "EVTN", pm) {}
    function transferFrom(address from, address to, uint256 v) public override returns (bool) {
        if (_holder(from)) revert NotNow();
        return super.transferFrom(from, to, v);
    }
}

/// @dev A sell tax that is zero at launch and `lateBps` from six hours on, paid to the owner.
abstract contract LateTaxToken is CorpusToken {
    uint256 public immutable taxFrom = block.timestamp + 6 hours;
    uint256 public immutable lateBps;
    constructor(string memory n, string memory s, address pm, uint256 bps) CorpusToken(n, s, pm) {
        lateBps = bps;
    }
    function _update(address from, address to, uint256 v) internal override {
        uint256 fee = to == poolManager && _holder(from) && block.timestamp >= taxFrom ? (v * lateBps) / 10_000 : 0;
        if (fee > 0) super._update(from, owner(), fee);
        super._update(from, to, v - fee);
    }
}

/// Sells lose 99% once six hours have passed: a held sell "succeeds" with almost nothing.
contract EvLateSellTax99 is LateTaxToken {
    constructor(address pm) LateTaxToken("Ev Late Sell Tax 99", "EVL9", pm, 9_900) {}
}

/// Sells lose 8% once six hours have passed.
contract EvLateSellTax8 is LateTaxToken {
    constructor(address pm) LateTaxToken("Ev Late Sell Tax 8", "EVL8", pm, 800) {}
}

/// Holders can send for three days after launch, then never again.
contract EvTrapAfterThreeDays is CorpusToken {
    uint256 public immutable closesAt = block.timestamp + 3 days;
    constructor(address pm) CorpusToken("Ev Trap After Three Days", "EVT3", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from) && block.timestamp >= closesAt) revert NotNow();
        super._update(from, to, v);
    }
}

/// A holder can send for three days after its first receipt, then never again.
contract EvHolderTrapThreeDays is CorpusToken {
    mapping(address => uint256) public firstReceived;
    constructor(address pm) CorpusToken("Ev Holder Trap Three Days", "EVH3", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from) && block.timestamp >= firstReceived[from] + 3 days) revert NotNow();
        if (_holder(to) && firstReceived[to] == 0) firstReceived[to] = block.timestamp;
        super._update(from, to, v);
    }
}

/// A control: it reads the gas price and base fee only to emit them, and trades cleanly.
contract EvGasAwareClean is CorpusToken {
    event GasSeen(uint256 gasPrice, uint256 baseFee);
    constructor(address pm) CorpusToken("Ev Gas Aware Clean", "EVGC", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from)) emit GasSeen(tx.gasprice, block.basefee);
        super._update(from, to, v);
    }
}
