// SPDX-License-Identifier: MIT
// Never deployed: an eth_call of its creation code runs the constructor, whose return data is the
// balances asked for (src/facts/chain/balance-reads.ts builds the call and reads the answer).
pragma solidity ^0.8.24;

/// @dev One eth_call reads many holders' balances: per holder a word of calldata names it and a word
/// selects its tokens (bit t: tokens[t]), where aggregate3 takes about 180 bytes per balance.
/// Returns one byte per balance, for each holder in order and each selected token in ascending
/// index: 1 when it was read, 0 when the token reverted or answered anything but one word; then
/// the balances as words in the same order. tokens[t] == address(0) reads the native balance.
/// The answer is returned as the contract's code would be, so it obeys what code obeys: at most
/// 24,576 bytes (EIP-170; the caller sends at most 700 balances) and never a first byte 0xEF
/// (EIP-3541), which the leading flags (0 or 1) rule out.
contract BalancesReader {
    bytes4 private constant BALANCE_OF = 0x70a08231;

    constructor(address[] memory tokens, address[] memory holders, uint256[] memory selected) {
        require(holders.length == selected.length, "one selection per holder");
        require(tokens.length <= 256, "at most 256 tokens");
        uint256 count = 0;
        for (uint256 h = 0; h < holders.length; h++) {
            for (uint256 t = 0; t < tokens.length; t++) {
                if ((selected[h] >> t) & 1 == 1) count++;
            }
        }
        bytes memory out = new bytes(count * 33);
        uint256 cell = 0;
        for (uint256 h = 0; h < holders.length; h++) {
            for (uint256 t = 0; t < tokens.length; t++) {
                if ((selected[h] >> t) & 1 == 0) continue;
                (bool ok, uint256 amount) = balanceOf(tokens[t], holders[h]);
                assembly {
                    mstore(add(add(out, 32), add(count, mul(cell, 32))), amount)
                }
                if (ok) out[cell] = 0x01;
                cell++;
            }
        }
        assembly {
            return(add(out, 32), mload(out))
        }
    }

    function balanceOf(address token, address holder) private view returns (bool, uint256) {
        if (token == address(0)) return (true, holder.balance);
        (bool ok, bytes memory data) = token.staticcall(abi.encodeWithSelector(BALANCE_OF, holder));
        if (!ok || data.length != 32) return (false, 0);
        return (true, abi.decode(data, (uint256)));
    }
}
