// SPDX-License-Identifier: MIT
// The commonly used subset of Multicall3, placed at its canonical address so viem's multicall works on the devnet.
pragma solidity ^0.8.24;

/// @dev Same selectors and semantics as mds1/multicall's Multicall3 for the functions present;
/// viem batches reads through aggregate3 at 0xcA11bde05977b3631167028862bE2a173976CA11, the
/// address the robinhood chain definition names.
contract Multicall3 {
    struct Call {
        address target;
        bytes callData;
    }

    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    error CallFailed(uint256 index);

    function aggregate(Call[] calldata calls) external payable returns (uint256 blockNumber, bytes[] memory returnData) {
        blockNumber = block.number;
        returnData = new bytes[](calls.length);
        for (uint256 i; i < calls.length; ++i) {
            bool success;
            (success, returnData[i]) = calls[i].target.call(calls[i].callData);
            if (!success) revert CallFailed(i);
        }
    }

    function tryAggregate(bool requireSuccess, Call[] calldata calls) external payable returns (Result[] memory results) {
        results = new Result[](calls.length);
        for (uint256 i; i < calls.length; ++i) {
            (bool success, bytes memory data) = calls[i].target.call(calls[i].callData);
            if (requireSuccess && !success) revert CallFailed(i);
            results[i] = Result(success, data);
        }
    }

    function aggregate3(Call3[] calldata calls) external payable returns (Result[] memory results) {
        results = new Result[](calls.length);
        for (uint256 i; i < calls.length; ++i) {
            (bool success, bytes memory data) = calls[i].target.call(calls[i].callData);
            if (!calls[i].allowFailure && !success) revert CallFailed(i);
            results[i] = Result(success, data);
        }
    }

    function getBlockNumber() external view returns (uint256) {
        return block.number;
    }

    function getCurrentBlockTimestamp() external view returns (uint256) {
        return block.timestamp;
    }

    function getChainId() external view returns (uint256) {
        return block.chainid;
    }

    function getBasefee() external view returns (uint256) {
        return block.basefee;
    }

    function getBlockHash(uint256 blockNumber) external view returns (bytes32) {
        return blockhash(blockNumber);
    }

    function getLastBlockHash() external view returns (bytes32) {
        return blockhash(block.number - 1);
    }

    function getEthBalance(address account) external view returns (uint256) {
        return account.balance;
    }
}
