// SPDX-License-Identifier: MIT
// Corpus tokens that tempt false or repeated factors: an owner handing out its own tokens, one send per block, and balances in a slot no search finds.
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {CorpusToken} from "./CorpusToken.sol";
import {OcLimiter} from "./OutsideCalls.sol";

error OncePerBlock();

/// The owner hands out tokens it holds: no supply is created, so it is no mint.
contract EvOwnerGift is CorpusToken {
    constructor(address pm) CorpusToken("Ev Owner Gift", "EVOG", pm) {}
    function distribute(address to, uint256 amount) external onlyOwner { _transfer(owner(), to, amount); }
}

/// A holder may send once a block (an anti-bot rule that stops nobody), and the owner may set a harmless memo.
contract EvOneSendPerBlock is CorpusToken {
    mapping(address => uint256) private lastSend;
    uint256 public memo;
    constructor(address pm) CorpusToken("Ev One Send Per Block", "EVOS", pm) {}
    function setMemo(uint256 value) external onlyOwner { memo = value; }
    function _update(address from, address to, uint256 v) internal override {
        if (_holder(from)) {
            if (lastSend[from] == block.number) revert OncePerBlock();
            lastSend[from] = block.number;
        }
        super._update(from, to, v);
    }
}

/// @dev Balances kept in a mapping past slot 100, where no balance-slot search looks; no owner.
abstract contract HiddenSlotToken is ERC20 {
    uint256[100] private _gap;
    mapping(address => uint256) private _held;
    uint256 private _supply;
    address public immutable poolManager;

    constructor(string memory name_, string memory symbol_, address poolManager_) ERC20(name_, symbol_) {
        poolManager = poolManager_;
        _mint(msg.sender, 1_000_000 ether);
    }
    function balanceOf(address account) public view override returns (uint256) { return _held[account]; }
    function totalSupply() public view override returns (uint256) { return _supply; }
    function _update(address from, address to, uint256 v) internal virtual override {
        if (from == address(0)) {
            _supply += v;
        } else {
            uint256 held = _held[from];
            if (held < v) revert ERC20InsufficientBalance(from, held, v);
            _held[from] = held - v;
        }
        if (to == address(0)) _supply -= v;
        else _held[to] += v;
        emit Transfer(from, to, v);
    }
}

/// The safe control: a plain token, but for where it keeps balances; its code calls no other contract.
contract CleanHiddenSlot is HiddenSlotToken {
    constructor(address pm) HiddenSlotToken("Clean Hidden Slot", "CLHS", pm) {}
}

/// Balances where no search finds them, and every holder's transfer asks a limiter its deployer owns.
contract OcOwnedLimiterHiddenSlot is HiddenSlotToken {
    OcLimiter public immutable limiter;
    address public immutable owner;
    constructor(address pm) HiddenSlotToken("Oc Owned Limiter Hidden Slot", "OCLH", pm) {
        owner = msg.sender;
        limiter = new OcLimiter(msg.sender);
    }
    function _update(address from, address to, uint256 v) internal override {
        if (from != owner && from != poolManager && from != address(0)) limiter.check(from, to, v);
        super._update(from, to, v);
    }
}
