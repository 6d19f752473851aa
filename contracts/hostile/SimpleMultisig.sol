// SPDX-License-Identifier: MIT
// A minimal M-of-N multisig that answers Safe's getOwners()/getThreshold(), to own a token.
pragma solidity ^0.8.24;

contract SimpleMultisig {
    struct Proposal {
        address to;
        uint256 value;
        bytes data;
        uint256 approvals;
        bool executed;
    }

    address[] private _owners;
    uint256 private immutable _threshold;
    mapping(address account => bool) public isOwner;
    Proposal[] private _proposals;
    mapping(uint256 id => mapping(address owner => bool)) public approved;

    event Proposed(uint256 indexed id, address indexed proposer, address to, uint256 value, bytes data);
    event Approved(uint256 indexed id, address indexed owner);
    event Executed(uint256 indexed id);

    error InvalidConfiguration();
    error NotOwner();
    error AlreadyApproved();
    error AlreadyExecuted();
    error CallFailed(bytes reason);

    constructor(address[] memory owners_, uint256 threshold_) {
        if (threshold_ == 0 || threshold_ > owners_.length) revert InvalidConfiguration();
        for (uint256 i; i < owners_.length; ++i) {
            if (owners_[i] == address(0) || isOwner[owners_[i]]) revert InvalidConfiguration();
            isOwner[owners_[i]] = true;
        }
        _owners = owners_;
        _threshold = threshold_;
    }

    receive() external payable {}

    function getOwners() external view returns (address[] memory) {
        return _owners;
    }

    function getThreshold() external view returns (uint256) {
        return _threshold;
    }

    /// @notice Proposes a call and counts the proposer's approval.
    function propose(address to, uint256 value, bytes calldata data) external returns (uint256 id) {
        if (!isOwner[msg.sender]) revert NotOwner();
        id = _proposals.length;
        _proposals.push(Proposal(to, value, data, 0, false));
        emit Proposed(id, msg.sender, to, value, data);
        approve(id);
    }

    /// @notice Approves a proposal; the approval that reaches the threshold executes it.
    function approve(uint256 id) public {
        if (!isOwner[msg.sender]) revert NotOwner();
        Proposal storage proposal = _proposals[id];
        if (proposal.executed) revert AlreadyExecuted();
        if (approved[id][msg.sender]) revert AlreadyApproved();
        approved[id][msg.sender] = true;
        emit Approved(id, msg.sender);
        if (++proposal.approvals >= _threshold) _execute(id, proposal);
    }

    function _execute(uint256 id, Proposal storage proposal) private {
        proposal.executed = true;
        (bool ok, bytes memory reason) = proposal.to.call{value: proposal.value}(proposal.data);
        if (!ok) revert CallFailed(reason);
        emit Executed(id);
    }
}
