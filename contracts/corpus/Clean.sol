// SPDX-License-Identifier: MIT
// Corpus tokens with nothing to fear: no traps, no fees, no powers (all labelled safe).
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Burnable} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Burnable.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {ERC20Capped} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Capped.sol";
import {CorpusToken, OwnerlessCorpusToken} from "./CorpusToken.sol";

contract CleanOwnerless is OwnerlessCorpusToken {
    constructor(address pm) OwnerlessCorpusToken("Clean Ownerless", "CLNO", pm) {}
}

/// An owner with no power: Ownable alone grants nothing over holders.
contract CleanOwned is CorpusToken {
    constructor(address pm) CorpusToken("Clean Owned", "CLOW", pm) {}
}

contract CleanPermit is OwnerlessCorpusToken, ERC20Permit {
    constructor(address pm) OwnerlessCorpusToken("Clean Permit", "CLPM", pm) ERC20Permit("Clean Permit") {}
}

contract CleanBurnable is OwnerlessCorpusToken, ERC20Burnable {
    constructor(address pm) OwnerlessCorpusToken("Clean Burnable", "CLBN", pm) {}
}

/// Deployed without a pool: a buyer gets it from a holder.
contract CleanNoPool is OwnerlessCorpusToken {
    constructor(address pm) OwnerlessCorpusToken("Clean No Pool", "CLNP", pm) {}
}

contract CleanSixDecimals is OwnerlessCorpusToken {
    constructor(address pm) OwnerlessCorpusToken("Clean Six Decimals", "CLS6", pm) {}
    function decimals() public pure override returns (uint8) {
        return 6;
    }
}

/// A capped mint whose owner the corpus renounces.
contract CappedRenounced is ERC20Capped, CorpusToken {
    constructor(address pm) CorpusToken("Capped Renounced", "CPRN", pm) ERC20Capped(2_000_000 ether) {}
    function mint(address to, uint256 amount) external onlyOwner { _mint(to, amount); }
    function _update(address from, address to, uint256 v) internal override(ERC20, ERC20Capped) {
        super._update(from, to, v);
    }
}
