-- Appended to every scenario: prints one JSON line the runner (scripts/bench) reads.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\n{"requests":%d,"duration_us":%d,"errors":%d,"non2xx":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"mean_us":%.1f}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.mean))
end
