// SPDX-License-Identifier: MIT
// Corpus tokens whose transfers ask another contract: one the token's owner controls (harmless today), and one the registry lists.
pragma solidity ^0.8.24;

import {CorpusToken} from "./CorpusToken.sol";

error OverLimit();

/// A per-transfer limit its owner may lower at any time; unlimited when deployed.
contract OcLimiter {
    address public owner;
    uint256 public maxPerTransfer = type(uint256).max;
    constructor(address owner_) { owner = owner_; }
    function setMaxPerTransfer(uint256 max) external {
        require(msg.sender == owner, "not owner");
        maxPerTransfer = max;
    }
    function check(address, address, uint256 amount) external view {
        if (amount > maxPerTransfer) revert OverLimit();
    }
}

/// Every holder's transfer asks a limiter owned by the token's owner: sells work until the owner lowers the limit.
contract OcOwnedLimiter is CorpusToken {
    OcLimiter public immutable limiter;
    constructor(address pm) CorpusToken("Oc Owned Limiter", "OCOL", pm) {
        limiter = new OcLimiter(msg.sender);
    }
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from)) limiter.check(from, to, v);
        super._update(from, to, v);
    }
}

interface IMulticall3 {
    function getBlockNumber() external view returns (uint256);
}

/// The safe control: every transfer asks Multicall3 (canonical address, a registry contract) for the block number.
contract OcRegistryCaller is CorpusToken {
    IMulticall3 public constant MULTICALL3 = IMulticall3(0xcA11bde05977b3631167028862bE2a173976CA11);
    uint256 public lastBlock;
    constructor(address pm) CorpusToken("Oc Registry Caller", "OCRC", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (address(MULTICALL3).code.length > 0) lastBlock = MULTICALL3.getBlockNumber();
        super._update(from, to, v);
    }
}
