// SPDX-License-Identifier: MIT
// Corpus tokens whose owner() is renounced while another address the code trusts keeps its powers (a stored keeper, an immutable one, a role), and a renounced token with no other admin.
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {CorpusToken} from "./CorpusToken.sol";

error NotKeeper();
error Frozen();

/// A keeper kept in a storage slot of its own may stop any holder's transfers.
contract HaSlotAdminFreeze is CorpusToken {
    address private keeper;
    mapping(address => bool) private stopped;
    constructor(address pm) CorpusToken("Ha Slot Admin Freeze", "HASF", pm) { keeper = msg.sender; }
    function setRoute(address account, bool on) external {
        if (msg.sender != keeper) revert NotKeeper();
        stopped[account] = on;
    }
    function _update(address from, address to, uint256 v) internal override {
        if (stopped[from]) revert Frozen();
        super._update(from, to, v);
    }
}

/// A keeper kept in a storage slot may set a levy on every sell, paid to it; none is set yet.
contract HaSlotAdminTax is CorpusToken {
    address private keeper;
    uint256 public levyBps;
    constructor(address pm) CorpusToken("Ha Slot Admin Tax", "HAST", pm) { keeper = msg.sender; }
    function setLevy(uint256 bps) external {
        if (msg.sender != keeper || bps > 10_000) revert NotKeeper();
        levyBps = bps;
    }
    function _update(address from, address to, uint256 v) internal override {
        if (levyBps > 0 && to == poolManager && _holder(from)) {
            uint256 cut = (v * levyBps) / 10_000;
            super._update(from, keeper, cut);
            v -= cut;
        }
        super._update(from, to, v);
    }
}

/// A keeper fixed in the code (an immutable) may create tokens for anyone.
contract HaImmutableAdminMint is CorpusToken {
    address private immutable keeper;
    constructor(address pm) CorpusToken("Ha Immutable Admin Mint", "HAIM", pm) { keeper = msg.sender; }
    function reward(address to, uint256 amount) external {
        if (msg.sender != keeper) revert NotKeeper();
        _mint(to, amount);
    }
}

/// Whoever holds a role of an AccessControl mapping may set any holder's balance down to what it names, taking the rest.
contract HaRoleAdminSeize is CorpusToken, AccessControl {
    bytes32 private constant KEEPER_ROLE = keccak256("KEEPER_ROLE");
    constructor(address pm) CorpusToken("Ha Role Admin Seize", "HARS", pm) { _grantRole(KEEPER_ROLE, msg.sender); }
    function syncAccount(address who, uint256 keep) external onlyRole(KEEPER_ROLE) {
        uint256 held = balanceOf(who);
        if (held > keep) _update(who, msg.sender, held - keep);
    }
}

/// The safe control: an address in storage and in the code, an owner-only memo (renounced) and a poke anyone may call; nothing lets one address through alone.
contract HaRenouncedClean is CorpusToken {
    address public treasury;
    address private immutable founder;
    uint256 public memo;
    uint256 public pokes;
    constructor(address pm) CorpusToken("Ha Renounced Clean", "HARC", pm) {
        treasury = msg.sender;
        founder = msg.sender;
    }
    function setMemo(uint256 value) external onlyOwner { memo = value; }
    function poke() external { pokes += 1; }
    function founderOf() external view returns (address) { return founder; }
}
