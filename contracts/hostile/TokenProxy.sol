// SPDX-License-Identifier: MIT
// Pulls OpenZeppelin's ERC1967Proxy into the build: the devnet deploys it in front of UpgradeableToken.
pragma solidity ^0.8.24;

import {ERC1967Proxy} from "@openzeppelin/contracts/proxy/ERC1967/ERC1967Proxy.sol";
