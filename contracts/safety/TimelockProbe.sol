// SPDX-License-Identifier: MIT
// What a token-safety check runs against a token's owner contract to see whether it is a timelock: queue a harmless call through it, then try to run it.
pragma solidity ^0.8.28;

/// OpenZeppelin's TimelockController, as far as the probe drives it.
interface IOzTimelock {
    function getMinDelay() external view returns (uint256);
    function schedule(address target, uint256 value, bytes calldata data, bytes32 predecessor, bytes32 salt, uint256 delay) external;
    function execute(address target, uint256 value, bytes calldata payload, bytes32 predecessor, bytes32 salt) external payable;
}

/// Compound's Timelock (GovernorAlpha and its forks), as far as the probe drives it.
interface ICompoundTimelock {
    function delay() external view returns (uint256);
    function queueTransaction(address target, uint256 value, string calldata signature, bytes calldata data, uint256 eta) external returns (bytes32);
    function executeTransaction(address target, uint256 value, string calldata signature, bytes calldata data, uint256 eta) external payable returns (bytes memory);
}

/// @dev The check makes this probe's address the lock's proposer and executor (OpenZeppelin's
/// AccessControl roles) and its admin (Compound's slot 0) by state override, so the probe queues
/// and runs calls as whoever controls the lock would. The queued call is `ping()` on the probe
/// itself, so a run that reports success but never called it counts as not run. A lock that
/// answers neither getMinDelay() nor delay(), or that the probe cannot queue through, is not
/// shown to be a timelock; the check then treats it as any owner contract (ARCHITECTURE.md
/// "Token safety").
abstract contract TimelockProbe {
    /// 0: no claimed delay answered; 1: OpenZeppelin (getMinDelay); 2: Compound (delay).
    uint8 private constant NONE = 0;
    uint8 private constant OPENZEPPELIN = 1;
    uint8 private constant COMPOUND = 2;

    uint8 private _family;
    /// The eta a Compound-style lock queued the call for (its executeTransaction names it again).
    uint256 private _eta;
    /// How many times a lock ran the queued call.
    uint256 private _pings;

    /// @notice The queued call: records that the lock ran it.
    function ping() external {
        _pings += 1;
    }

    /// @notice Reads the delay `lock` claims, queues ping() through it at the shortest wait it
    /// accepts (none at all, else `shortWait`, else the claimed delay), and tries to run it at once.
    /// @param shortWait Just under the delay the check asks of a timelock: a lock that accepts it
    /// lets calls run sooner than that, whatever delay it claims.
    /// @return family 0 none, 1 OpenZeppelin, 2 Compound.
    /// @return claimedDelay The claimed minimum delay, in seconds.
    /// @return queued Whether the lock accepted the queued call.
    /// @return ranAtOnce Whether the lock ran it in the block it was queued in.
    function queueAtLock(address lock, uint256 shortWait) external returns (uint8 family, uint256 claimedDelay, bool queued, bool ranAtOnce) {
        (family, claimedDelay) = _claimedDelay(lock);
        _family = family;
        if (family == NONE) return (family, claimedDelay, false, false);
        queued = _queue(lock, 0) || _queue(lock, shortWait) || _queue(lock, claimedDelay);
        if (queued) ranAtOnce = _run(lock);
    }

    /// @notice Tries to run the call queueAtLock queued.
    /// @return ran Whether the lock ran it now.
    function runAtLock(address lock) external returns (bool ran) {
        return _run(lock);
    }

    function _claimedDelay(address lock) private view returns (uint8, uint256) {
        (bool ok, bytes memory answer) = lock.staticcall(abi.encodeCall(IOzTimelock.getMinDelay, ()));
        if (ok && answer.length == 32) return (OPENZEPPELIN, abi.decode(answer, (uint256)));
        (ok, answer) = lock.staticcall(abi.encodeCall(ICompoundTimelock.delay, ()));
        if (ok && answer.length == 32) return (COMPOUND, abi.decode(answer, (uint256)));
        return (NONE, 0);
    }

    function _queue(address lock, uint256 wait) private returns (bool ok) {
        if (_family == OPENZEPPELIN) {
            (ok,) = lock.call(abi.encodeCall(IOzTimelock.schedule, (address(this), 0, _pingCall(), bytes32(0), bytes32(0), wait)));
        } else {
            _eta = block.timestamp + wait;
            (ok,) = lock.call(abi.encodeCall(ICompoundTimelock.queueTransaction, (address(this), 0, "ping()", "", _eta)));
        }
    }

    function _run(address lock) private returns (bool) {
        uint256 before = _pings;
        bool ok;
        if (_family == OPENZEPPELIN) {
            (ok,) = lock.call(abi.encodeCall(IOzTimelock.execute, (address(this), 0, _pingCall(), bytes32(0), bytes32(0))));
        } else if (_family == COMPOUND) {
            (ok,) = lock.call(abi.encodeCall(ICompoundTimelock.executeTransaction, (address(this), 0, "ping()", "", _eta)));
        }
        return ok && _pings > before;
    }

    function _pingCall() private pure returns (bytes memory) {
        return abi.encodeWithSignature("ping()");
    }
}
