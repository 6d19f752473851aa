// SPDX-License-Identifier: MIT
// ERC-8056 (Scaled UI Amount): the display multiplier tokenized stocks use for splits.
pragma solidity ^0.8.0;

interface IScaledUIAmount {
    event UIMultiplierUpdated(
        uint256 oldMultiplier, uint256 newMultiplier, uint256 setAtTimestamp, uint256 effectiveAtTimestamp
    );

    /// @return The multiplier in effect now, 18-decimal fixed point (1e18 = 1.0).
    function uiMultiplier() external view returns (uint256);

    function toUIAmount(uint256 rawAmount) external view returns (uint256);

    function fromUIAmount(uint256 uiAmount) external view returns (uint256);

    function balanceOfUI(address account) external view returns (uint256);

    function setUIMultiplier(uint256 newMultiplier, uint256 effectiveAtTimestamp) external;
}

/// @notice The pending-multiplier extension ERC-8056 also requires.
interface IScaledUIAmountNewUIMultiplier {
    function newUIMultiplier() external view returns (uint256);

    function effectiveAt() external view returns (uint256);
}
