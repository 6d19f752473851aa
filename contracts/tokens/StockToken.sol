// SPDX-License-Identifier: MIT
// A tokenized US stock: 18-decimal ERC-20 with the ERC-8056 display multiplier for splits.
pragma solidity ^0.8.24;

import {ERC165} from "@openzeppelin/contracts/utils/introspection/ERC165.sol";
import {MintableToken} from "./MintableToken.sol";
import {IScaledUIAmount, IScaledUIAmountNewUIMultiplier} from "../interfaces/IScaledUIAmount.sol";

contract StockToken is MintableToken, ERC165, IScaledUIAmount, IScaledUIAmountNewUIMultiplier {
    uint256 private constant ONE = 1e18;

    // The multiplier before `_effectiveAt` and the one from then on (ERC-8056 reference semantics).
    uint256 private _uiMultiplier = ONE;
    uint256 private _newUIMultiplier = ONE;
    uint256 private _effectiveAt;

    error InvalidMultiplier();
    error EffectiveAtInPast();

    constructor(string memory name_, string memory symbol_, address owner_) MintableToken(name_, symbol_, owner_) {}

    function uiMultiplier() public view returns (uint256) {
        return block.timestamp >= _effectiveAt ? _newUIMultiplier : _uiMultiplier;
    }

    function newUIMultiplier() external view returns (uint256) {
        return _newUIMultiplier;
    }

    function effectiveAt() external view returns (uint256) {
        return _effectiveAt;
    }

    function toUIAmount(uint256 rawAmount) public view returns (uint256) {
        return (rawAmount * uiMultiplier()) / ONE;
    }

    function fromUIAmount(uint256 uiAmount) external view returns (uint256) {
        return (uiAmount * ONE) / uiMultiplier();
    }

    function balanceOfUI(address account) external view returns (uint256) {
        return toUIAmount(balanceOf(account));
    }

    /// @notice Schedules a split; an effective time equal to now applies it at once,
    /// which devnet tests use instead of waiting for a future block.
    function setUIMultiplier(uint256 newMultiplier, uint256 effectiveAtTimestamp) external onlyOwner {
        if (newMultiplier == 0) revert InvalidMultiplier();
        if (effectiveAtTimestamp < block.timestamp) revert EffectiveAtInPast();
        uint256 current = uiMultiplier();
        _uiMultiplier = current;
        _newUIMultiplier = newMultiplier;
        _effectiveAt = effectiveAtTimestamp;
        emit UIMultiplierUpdated(current, newMultiplier, block.timestamp, effectiveAtTimestamp);
    }

    function supportsInterface(bytes4 interfaceId) public view override returns (bool) {
        return interfaceId == type(IScaledUIAmount).interfaceId
            || interfaceId == type(IScaledUIAmountNewUIMultiplier).interfaceId || super.supportsInterface(interfaceId);
    }
}
