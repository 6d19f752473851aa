// SPDX-License-Identifier: MIT
// Corpus tokens whose traps read who calls: every other simulated holder runs the probe's code, while real holders are wallets without code.
pragma solidity ^0.8.24;

import {CorpusToken} from "./CorpusToken.sol";

error WalletsMayNotSend();

/// A holder's tokens move only when the caller has code: contracts (and routers pulling with
/// transferFrom) sell, but a wallet's own transfer reverts.
contract EvCodelessSenderTrap is CorpusToken {
    constructor(address pm) CorpusToken("Ev Codeless Sender Trap", "EVCS", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from) && msg.sender.code.length == 0) revert WalletsMayNotSend();
        super._update(from, to, v);
    }
}

/// The same by `tx.origin == msg.sender`: a call straight from the wallet that signed it reverts.
contract EvOriginSenderTrap is CorpusToken {
    constructor(address pm) CorpusToken("Ev Origin Sender Trap", "EVOS", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from) && tx.origin == msg.sender) revert WalletsMayNotSend();
        super._update(from, to, v);
    }
}

/// The safe control: it notes whether each transfer's caller has code and whether it is the
/// transaction's signer, and stops nobody.
contract EvCallerReaderClean is CorpusToken {
    bool public lastCallerHadCode;
    bool public lastCallerSigned;
    constructor(address pm) CorpusToken("Ev Caller Reader Clean", "EVCC", pm) {}
    function _update(address from, address to, uint256 v) internal override {
        lastCallerHadCode = msg.sender.code.length > 0;
        lastCallerSigned = tx.origin == msg.sender;
        super._update(from, to, v);
    }
}
