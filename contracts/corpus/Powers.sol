// SPDX-License-Identifier: MIT
// Corpus tokens that trade cleanly but leave someone a power over holders: mint, roles, self-destruct, delegatecall.
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {CorpusToken} from "./CorpusToken.sol";

/// The owner mints at will (the corpus deploys it twice: kept, and renounced).
contract OwnerMintable is CorpusToken {
    constructor(address pm) CorpusToken("Owner Mintable", "OMNT", pm) {}
    function mint(address to, uint256 amount) external onlyOwner { _mint(to, amount); }
}

/// No owner(): whoever holds MINTER_ROLE mints.
contract RoleMintable is ERC20, AccessControl {
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
    address public immutable poolManager;
    constructor(address pm) ERC20("Role Mintable", "RMNT") {
        poolManager = pm;
        _grantRole(DEFAULT_ADMIN_ROLE, msg.sender);
        _grantRole(MINTER_ROLE, msg.sender);
        _mint(msg.sender, 1_000_000 ether);
    }
    function mint(address to, uint256 amount) external onlyRole(MINTER_ROLE) { _mint(to, amount); }
}

/// The owner can destroy the code (after Cancun only within the creating transaction, but the opcode is there).
contract SelfDestructible is CorpusToken {
    constructor(address pm) CorpusToken("Self Destructible", "SDST", pm) {}
    function destroy() external onlyOwner {
        selfdestruct(payable(owner()));
    }
}

/// The owner can run any code against the token's storage.
contract DelegatecallBackdoor is CorpusToken {
    constructor(address pm) CorpusToken("Delegatecall Backdoor", "DGCL", pm) {}
    function execute(address target, bytes calldata data) external onlyOwner returns (bytes memory) {
        (bool ok, bytes memory answer) = target.delegatecall(data);
        require(ok, "call failed");
        return answer;
    }
}
