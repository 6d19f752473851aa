// SPDX-License-Identifier: MIT
// Corpus tokens whose capped mint belongs to a two-day timelock: a narrow cap (excused) and a wide one (not).
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Capped} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Capped.sol";
import {TimelockController} from "@openzeppelin/contracts/governance/TimelockController.sol";
import {CorpusToken} from "./CorpusToken.sol";

/// Ownership passes to a TimelockController with a two-day delay, proposed and executed by the deployer.
abstract contract TimelockedCappedMint is ERC20Capped, CorpusToken {
    constructor(string memory name_, string memory symbol_, address pm, uint256 cap_)
        CorpusToken(name_, symbol_, pm) ERC20Capped(cap_)
    {
        address[] memory members = new address[](1);
        members[0] = msg.sender;
        _transferOwnership(address(new TimelockController(2 days, members, members, address(0))));
    }
    function mint(address to, uint256 amount) external onlyOwner { _mint(to, amount); }
    function _update(address from, address to, uint256 v) internal override(ERC20, ERC20Capped) {
        super._update(from, to, v);
    }
}

/// At most 5% more supply, announced two days ahead.
contract TlCappedMintNarrow is TimelockedCappedMint {
    constructor(address pm) TimelockedCappedMint("Tl Capped Mint Narrow", "TLCN", pm, 1_050_000 ether) {}
}

/// Up to ten times the supply, however long the delay.
contract TlCappedMintWide is TimelockedCappedMint {
    constructor(address pm) TimelockedCappedMint("Tl Capped Mint Wide", "TLCW", pm, 10_000_000 ether) {}
}
