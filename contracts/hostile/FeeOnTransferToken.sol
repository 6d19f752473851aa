// SPDX-License-Identifier: MIT
// A fee-on-transfer token for the token-safety checker: every transfer delivers 90%.
pragma solidity ^0.8.24;

import {MintableToken} from "../tokens/MintableToken.sol";

contract FeeOnTransferToken is MintableToken {
    uint256 public constant FEE_BPS = 1_000;

    /// @notice Exempt accounts send and receive without the fee; the owner is exempt so it
    /// can seed a pool (v4 settles by balance difference and would see the deposit short).
    mapping(address account => bool) public isFeeExempt;

    constructor(string memory name_, string memory symbol_, address owner_) MintableToken(name_, symbol_, owner_) {
        isFeeExempt[owner_] = true;
    }

    function setFeeExempt(address account, bool exempt) external onlyOwner {
        isFeeExempt[account] = exempt;
    }

    /// @dev The fee goes to the owner; mints and burns are never charged.
    function _update(address from, address to, uint256 value) internal override {
        if (from == address(0) || to == address(0) || isFeeExempt[from] || isFeeExempt[to]) {
            super._update(from, to, value);
            return;
        }
        uint256 fee = (value * FEE_BPS) / 10_000;
        super._update(from, owner(), fee);
        super._update(from, to, value - fee);
    }
}
