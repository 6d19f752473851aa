// SPDX-License-Identifier: MIT
// Corpus tokens whose owner acts in two steps with time between them: a freeze queued then settled a day later, and a memo proposed then applied (the safe control).
pragma solidity ^0.8.24;

import {CorpusToken} from "./CorpusToken.sol";

error NotYet();
error UnderReview();

/// The owner queues a review of a holder; a day later it settles it, and the holder can no longer send.
contract EvTwoStepFreeze is CorpusToken {
    mapping(address => uint256) private queuedAt;
    mapping(address => bool) private settled;
    constructor(address pm) CorpusToken("Ev Two Step Freeze", "EVTF", pm) {}
    function queueReview(address account) external onlyOwner { queuedAt[account] = block.timestamp; }
    function settleReview(address account) external onlyOwner {
        uint256 at = queuedAt[account];
        if (at == 0 || block.timestamp < at + 1 days) revert NotYet();
        settled[account] = true;
    }
    function _update(address from, address to, uint256 v) internal override {
        if (settled[from]) revert UnderReview();
        super._update(from, to, v);
    }
}

/// The safe control: the owner proposes a memo and applies it a day later; no holder is touched.
contract EvTwoStepMemo is CorpusToken {
    uint256 private proposed;
    uint256 private proposedAt;
    uint256 public memo;
    constructor(address pm) CorpusToken("Ev Two Step Memo", "EVTM", pm) {}
    function proposeMemo(uint256 value) external onlyOwner { (proposed, proposedAt) = (value, block.timestamp); }
    function applyMemo() external onlyOwner {
        if (proposedAt == 0 || block.timestamp < proposedAt + 1 days) revert NotYet();
        memo = proposed;
    }
}
