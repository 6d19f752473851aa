// SPDX-License-Identifier: MIT
// Corpus tokens whose narrow capped mint belongs to a contract that claims a two-day delay: a Compound-style Timelock (excused) and fakes that run calls sooner (not).
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Capped} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Capped.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {CorpusToken} from "./CorpusToken.sol";

/// Compound's Timelock (as GovernorAlpha and its forks deploy it): the admin queues a call for an
/// eta at least `delay` away and runs it between the eta and 14 days after.
contract CompoundTimelock {
    uint256 public constant GRACE_PERIOD = 14 days;
    uint256 public constant MINIMUM_DELAY = 2 days;
    uint256 public constant MAXIMUM_DELAY = 30 days;

    address public admin;
    address public pendingAdmin;
    uint256 public delay;
    mapping(bytes32 => bool) public queuedTransactions;

    constructor(address admin_, uint256 delay_) {
        require(delay_ >= MINIMUM_DELAY && delay_ <= MAXIMUM_DELAY, "Timelock::constructor: Delay out of range.");
        admin = admin_;
        delay = delay_;
    }

    function setDelay(uint256 delay_) external {
        require(msg.sender == address(this), "Timelock::setDelay: Call must come from Timelock.");
        require(delay_ >= MINIMUM_DELAY && delay_ <= MAXIMUM_DELAY, "Timelock::setDelay: Delay out of range.");
        delay = delay_;
    }

    function acceptAdmin() external {
        require(msg.sender == pendingAdmin, "Timelock::acceptAdmin: Call must come from pendingAdmin.");
        admin = msg.sender;
        pendingAdmin = address(0);
    }

    function setPendingAdmin(address pendingAdmin_) external {
        require(msg.sender == address(this), "Timelock::setPendingAdmin: Call must come from Timelock.");
        pendingAdmin = pendingAdmin_;
    }

    function queueTransaction(address target, uint256 value, string memory signature, bytes memory data, uint256 eta) external returns (bytes32) {
        require(msg.sender == admin, "Timelock::queueTransaction: Call must come from admin.");
        require(eta >= block.timestamp + delay, "Timelock::queueTransaction: Estimated execution block must satisfy delay.");
        bytes32 txHash = keccak256(abi.encode(target, value, signature, data, eta));
        queuedTransactions[txHash] = true;
        return txHash;
    }

    function cancelTransaction(address target, uint256 value, string memory signature, bytes memory data, uint256 eta) external {
        require(msg.sender == admin, "Timelock::cancelTransaction: Call must come from admin.");
        queuedTransactions[keccak256(abi.encode(target, value, signature, data, eta))] = false;
    }

    function executeTransaction(address target, uint256 value, string memory signature, bytes memory data, uint256 eta) external payable returns (bytes memory) {
        require(msg.sender == admin, "Timelock::executeTransaction: Call must come from admin.");
        bytes32 txHash = keccak256(abi.encode(target, value, signature, data, eta));
        require(queuedTransactions[txHash], "Timelock::executeTransaction: Transaction hasn't been queued.");
        require(block.timestamp >= eta, "Timelock::executeTransaction: Transaction hasn't surpassed time lock.");
        require(block.timestamp <= eta + GRACE_PERIOD, "Timelock::executeTransaction: Transaction is stale.");
        queuedTransactions[txHash] = false;
        bytes memory callData = bytes(signature).length == 0 ? data : abi.encodePacked(bytes4(keccak256(bytes(signature))), data);
        (bool success, bytes memory returnData) = target.call{value: value}(callData);
        require(success, "Timelock::executeTransaction: Transaction execution reverted.");
        return returnData;
    }
}

/// Answers getMinDelay() with two days and has TimelockController's schedule and execute, but
/// each fake below breaks the wait in its own way: whoever holds the roles runs a call sooner.
abstract contract FakeTimelock is AccessControl {
    bytes32 public constant PROPOSER_ROLE = keccak256("PROPOSER_ROLE");
    bytes32 public constant EXECUTOR_ROLE = keccak256("EXECUTOR_ROLE");
    mapping(bytes32 => uint256) private _readyAt;

    constructor(address member) {
        _grantRole(PROPOSER_ROLE, member);
        _grantRole(EXECUTOR_ROLE, member);
    }

    function getMinDelay() external pure returns (uint256) {
        return 2 days;
    }

    /// The shortest wait schedule accepts.
    function _shortestWait() internal pure virtual returns (uint256);

    /// Whether a call scheduled for `readyAt` may run now.
    function _mayRun(uint256 readyAt) internal view virtual returns (bool);

    function schedule(address target, uint256 value, bytes calldata data, bytes32 predecessor, bytes32 salt, uint256 delay)
        external
        onlyRole(PROPOSER_ROLE)
    {
        require(delay >= _shortestWait(), "delay below the minimum");
        _readyAt[keccak256(abi.encode(target, value, data, predecessor, salt))] = block.timestamp + delay;
    }

    function execute(address target, uint256 value, bytes calldata payload, bytes32 predecessor, bytes32 salt)
        external
        payable
        onlyRole(EXECUTOR_ROLE)
    {
        bytes32 id = keccak256(abi.encode(target, value, payload, predecessor, salt));
        require(_readyAt[id] != 0 && _mayRun(_readyAt[id]), "not ready");
        delete _readyAt[id];
        (bool ok,) = target.call{value: value}(payload);
        require(ok, "call reverted");
    }
}

/// Refuses to schedule a wait under two days, as TimelockController does, but its execute checks
/// only that the call was scheduled, not that its time has come: a call runs at once.
contract FakeTimelockAtOnce is FakeTimelock {
    constructor(address member) FakeTimelock(member) {}

    function _shortestWait() internal pure override returns (uint256) {
        return 2 days;
    }

    function _mayRun(uint256) internal pure override returns (bool) {
        return true;
    }
}

/// Waits for the time a call was scheduled for, but schedules any wait of a second or more: a
/// call runs a block later.
contract FakeTimelockShortWait is FakeTimelock {
    constructor(address member) FakeTimelock(member) {}

    function _shortestWait() internal pure override returns (uint256) {
        return 1;
    }

    function _mayRun(uint256 readyAt) internal view override returns (bool) {
        return readyAt <= block.timestamp;
    }
}

/// Answers getMinDelay() with two days but has no queue at all: its owner runs any call at once.
contract FakeTimelockNoQueue is Ownable {
    constructor(address owner_) Ownable(owner_) {}

    function getMinDelay() external pure returns (uint256) {
        return 2 days;
    }

    function execute(address target, bytes calldata data) external onlyOwner returns (bytes memory) {
        (bool ok, bytes memory answer) = target.call(data);
        require(ok, "call reverted");
        return answer;
    }
}

/// At most 5% more supply, minted by `lock`, which the deployer controls.
abstract contract LockOwnedCappedMint is ERC20Capped, CorpusToken {
    constructor(string memory name_, string memory symbol_, address pm, address lock)
        CorpusToken(name_, symbol_, pm) ERC20Capped(1_050_000 ether)
    {
        _transferOwnership(lock);
    }
    function mint(address to, uint256 amount) external onlyOwner { _mint(to, amount); }
    function _update(address from, address to, uint256 v) internal override(ERC20, ERC20Capped) {
        super._update(from, to, v);
    }
}

/// Owned by a two-day Compound-style Timelock: every mint is queued two days before it runs.
contract TlCompoundCappedMintNarrow is LockOwnedCappedMint {
    constructor(address pm) LockOwnedCappedMint("Tl Compound Capped Mint", "TLCC", pm, address(new CompoundTimelock(msg.sender, 2 days))) {}
}

/// Owned by a contract that claims a two-day delay but executes a scheduled mint at once.
contract TlFakeAtOnceCappedMintNarrow is LockOwnedCappedMint {
    constructor(address pm) LockOwnedCappedMint("Tl Fake At Once Capped Mint", "TLFA", pm, address(new FakeTimelockAtOnce(msg.sender))) {}
}

/// Owned by a contract that claims a two-day delay but schedules a mint a second ahead.
contract TlFakeShortWaitCappedMintNarrow is LockOwnedCappedMint {
    constructor(address pm) LockOwnedCappedMint("Tl Fake Short Wait Capped Mint", "TLFS", pm, address(new FakeTimelockShortWait(msg.sender))) {}
}

/// Owned by a contract that claims a two-day delay but has no queue: its owner mints at once.
contract TlFakeNoQueueCappedMintNarrow is LockOwnedCappedMint {
    constructor(address pm) LockOwnedCappedMint("Tl Fake No Queue Capped Mint", "TLFN", pm, address(new FakeTimelockNoQueue(msg.sender))) {}
}
