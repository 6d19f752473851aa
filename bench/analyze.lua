-- wrk script for every HTTP row of `npm run bench`: a trade per request, its wallet varied by a
-- counter, optionally wrapped as an MCP tools/call, optionally with a header rotated per request.
-- bench/load-plan.ts's requestAt() builds the same requests for autocannon: keep the two in step.
-- wrk 4.1 calls request() once per thread before it connects and never sends that request, so
-- the count starts at -1: the first request sent is number 1, as requestAt(plan, 1).
local counter = -1
local asset = os.getenv("BENCH_ASSET") or "TSLA"
local contract = os.getenv("BENCH_CONTRACT") or "0xa6f91334bed73452616829fac9fa646b4b2b76e0"
local offset = tonumber(os.getenv("BENCH_WALLET_OFFSET") or "1")
-- Request n evaluates wallet offset + n % cycle; a cycle of 0 never repeats a wallet.
local cycle = tonumber(os.getenv("BENCH_WALLET_CYCLE") or "1000000")
local mcp = os.getenv("BENCH_MCP") == "1"
-- A row whose every answer carries one status (the edge's 404) counts the answers without it, in
-- place of wrk's count of non-2xx answers. done() runs in wrk's main Lua state and reads each
-- thread's count from the thread's own state.
local answers = tonumber(os.getenv("BENCH_ANSWERS") or "")
local threads = {}
setup = function(thread)
  threads[#threads + 1] = thread
end
if answers then
  unexpected = 0
  response = function(status)
    if status ~= answers then unexpected = unexpected + 1 end
  end
end

-- wrk does not tell request() which connection it is building for, and with -t1 every connection
-- shares this one Lua state: a rotated header (an MCP session id, a bearer token with its wallet)
-- therefore changes per request, not per connection. Requests in flight together are consecutive,
-- so with as many entries as connections they still use different sessions.
local rotation = {}
local file = os.getenv("BENCH_ROTATION_FILE")
if file and file ~= "" then
  for line in io.lines(file) do
    local wallet, name, value = line:match("^([^\t]+)\t([^\t]+)\t(.+)$")
    if wallet then
      rotation[#rotation + 1] = { wallet = wallet ~= "-" and wallet or nil, name = name, value = value }
    end
  end
end

wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
if mcp then
  wrk.headers["accept"] = "application/json, text/event-stream"
  wrk.headers["mcp-protocol-version"] = "2025-06-18"
end

request = function()
  counter = counter + 1
  local wallet = nil
  if #rotation > 0 then
    local entry = rotation[(counter - 1) % #rotation + 1]
    wrk.headers[entry.name] = entry.value
    wallet = entry.wallet
  end
  if not wallet then
    local index = offset + (cycle > 0 and counter % cycle or counter)
    wallet = string.format("0x%040x", index)
  end
  local body = string.format(
    '{"wallet":"%s","asset":"%s","contract_address":"%s","side":"buy","amount":1}',
    wallet, asset, contract)
  if mcp then
    body = string.format(
      '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"evaluate_trade","arguments":%s}}',
      counter, body)
  end
  return wrk.format(nil, nil, nil, body)
end

-- One line bench/wrk.ts parses: requests, duration (us), p50 and p99 (ms), the answers the row does not
-- expect (wrk's non-2xx/3xx count, or those without BENCH_ANSWERS's status), socket errors.
done = function(summary, latency, requests)
  local e = summary.errors
  local wrong = e.status
  if answers then
    wrong = 0
    for _, thread in ipairs(threads) do wrong = wrong + (thread:get("unexpected") or 0) end
  end
  io.write(string.format("WRK %d %d %.3f %.3f %d %d\n", summary.requests, summary.duration,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    wrong, e.connect + e.read + e.write + e.timeout))
end
