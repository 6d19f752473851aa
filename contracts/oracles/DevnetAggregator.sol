// SPDX-License-Identifier: MIT
// A Chainlink-compatible price feed whose rounds the owner sets, to play fresh and stale feeds.
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {AggregatorV3Interface} from "../interfaces/AggregatorV3Interface.sol";

contract DevnetAggregator is AggregatorV3Interface, Ownable {
    struct Round {
        int256 answer;
        uint64 startedAt;
        uint64 updatedAt;
    }

    uint8 public immutable decimals;
    string public description;
    uint256 public constant version = 4;
    uint80 public latestRound;
    mapping(uint80 roundId => Round) private _rounds;

    // The events Chainlink's own aggregators emit, so log-watching readers behave the same.
    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);
    event NewRound(uint256 indexed roundId, address indexed startedBy, uint256 startedAt);

    error NoDataPresent();

    /// @param age How long ago the first answer was published: a non-zero age deploys a stale feed.
    constructor(string memory description_, uint8 decimals_, int256 answer, uint256 age, address owner_)
        Ownable(owner_)
    {
        decimals = decimals_;
        description = description_;
        _pushRound(answer, block.timestamp - age);
    }

    /// @notice Publishes a new answer as of now.
    function updateAnswer(int256 answer) external onlyOwner {
        _pushRound(answer, block.timestamp);
    }

    /// @notice Publishes a new answer with an explicit timestamp, to make a feed stale on purpose.
    function updateRoundData(int256 answer, uint256 updatedAt) external onlyOwner {
        _pushRound(answer, updatedAt);
    }

    function getRoundData(uint80 roundId) public view returns (uint80, int256, uint256, uint256, uint80) {
        Round memory round = _rounds[roundId];
        if (round.updatedAt == 0) revert NoDataPresent();
        return (roundId, round.answer, round.startedAt, round.updatedAt, roundId);
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        return getRoundData(latestRound);
    }

    /// @notice The legacy AggregatorInterface readers some integrations still call.
    function latestAnswer() external view returns (int256) {
        return _rounds[latestRound].answer;
    }

    function latestTimestamp() external view returns (uint256) {
        return _rounds[latestRound].updatedAt;
    }

    function _pushRound(int256 answer, uint256 updatedAt) private {
        uint80 roundId = latestRound + 1;
        latestRound = roundId;
        _rounds[roundId] = Round(answer, uint64(updatedAt), uint64(updatedAt));
        emit NewRound(roundId, msg.sender, updatedAt);
        emit AnswerUpdated(answer, roundId, updatedAt);
    }
}
