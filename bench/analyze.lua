-- wrk script: POST a trade to analyze/free with a different wallet on every request.
local counter = 0
local asset = os.getenv("BENCH_ASSET") or "TSLA"
local contract = os.getenv("BENCH_CONTRACT") or "0xa6f91334bed73452616829fac9fa646b4b2b76e0"

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

request = function()
  counter = counter + 1
  local wallet = string.format("0x%040x", counter % 1000000)
  local body = string.format(
    '{"wallet":"%s","asset":"%s","contract_address":"%s","side":"buy","amount":1}',
    wallet, asset, contract)
  return wrk.format(nil, nil, nil, body)
end

done = function(summary, latency, requests)
  io.write(string.format("WRK %d %d %.3f %.3f %d\n", summary.requests, summary.duration,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
