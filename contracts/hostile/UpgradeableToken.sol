// SPDX-License-Identifier: MIT
// The implementation behind the devnet's EIP-1967 proxy: a UUPS ERC-20 with ERC-7201 storage.
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {Initializable} from "@openzeppelin/contracts/proxy/utils/Initializable.sol";
import {UUPSUpgradeable} from "@openzeppelin/contracts/proxy/utils/UUPSUpgradeable.sol";

/// @dev State lives at the ERC-7201 namespaces OpenZeppelin's upgradeable contracts use
/// ("openzeppelin.storage.ERC20" and "openzeppelin.storage.Ownable"), so balances are NOT in
/// slot 0: a balance simulator must find them at keccak256(holder . ERC20_STORAGE).
contract UpgradeableToken is Initializable, UUPSUpgradeable, IERC20Metadata {
    /// @custom:storage-location erc7201:openzeppelin.storage.ERC20
    struct ERC20Storage {
        mapping(address account => uint256) balances;
        mapping(address account => mapping(address spender => uint256)) allowances;
        uint256 totalSupply;
        string name;
        string symbol;
    }

    /// @custom:storage-location erc7201:openzeppelin.storage.Ownable
    struct OwnableStorage {
        address owner;
    }

    bytes32 public constant ERC20_STORAGE = 0x52c63247e1f47db19d5ce0460030c497f067ca4cebf71ba98eeadabe20bace00;
    bytes32 public constant OWNABLE_STORAGE = 0x9016d09d72d40fdae2fd8ceac6b6234c7706214fd39c1cd1e609a0528c199300;

    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error NotOwner();
    error InsufficientBalance();
    error InsufficientAllowance();
    error ZeroAddress();

    constructor() {
        _disableInitializers();
    }

    function initialize(string calldata name_, string calldata symbol_, address owner_) external initializer {
        ERC20Storage storage s = _erc20();
        s.name = name_;
        s.symbol = symbol_;
        _ownable().owner = owner_;
        emit OwnershipTransferred(address(0), owner_);
    }

    modifier onlyOwner() {
        if (msg.sender != owner()) revert NotOwner();
        _;
    }

    function owner() public view returns (address) {
        return _ownable().owner;
    }

    function name() external view returns (string memory) {
        return _erc20().name;
    }

    function symbol() external view returns (string memory) {
        return _erc20().symbol;
    }

    function decimals() external pure returns (uint8) {
        return 18;
    }

    function totalSupply() external view returns (uint256) {
        return _erc20().totalSupply;
    }

    function balanceOf(address account) external view returns (uint256) {
        return _erc20().balances[account];
    }

    function allowance(address holder, address spender) external view returns (uint256) {
        return _erc20().allowances[holder][spender];
    }

    function approve(address spender, uint256 value) external returns (bool) {
        _erc20().allowances[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        ERC20Storage storage s = _erc20();
        uint256 allowed = s.allowances[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (allowed < value) revert InsufficientAllowance();
            s.allowances[from][msg.sender] = allowed - value;
        }
        _move(from, to, value);
        return true;
    }

    function mintBatch(address[] calldata to, uint256[] calldata amounts) external onlyOwner {
        ERC20Storage storage s = _erc20();
        for (uint256 i; i < to.length; ++i) {
            s.balances[to[i]] += amounts[i];
            s.totalSupply += amounts[i];
            emit Transfer(address(0), to[i], amounts[i]);
        }
    }

    function _move(address from, address to, uint256 value) private {
        if (to == address(0)) revert ZeroAddress();
        ERC20Storage storage s = _erc20();
        if (s.balances[from] < value) revert InsufficientBalance();
        s.balances[from] -= value;
        s.balances[to] += value;
        emit Transfer(from, to, value);
    }

    function _authorizeUpgrade(address) internal view override onlyOwner {}

    function _erc20() private pure returns (ERC20Storage storage s) {
        assembly {
            s.slot := ERC20_STORAGE
        }
    }

    function _ownable() private pure returns (OwnableStorage storage s) {
        assembly {
            s.slot := OWNABLE_STORAGE
        }
    }
}
