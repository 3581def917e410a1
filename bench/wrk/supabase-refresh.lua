-- Supabase refresh (grant_type=refresh_token). The bench project turns rotation off, so all connections can
-- share the one token the runner got (with rotation on, concurrent reuse of one token is refused as GoTrue does).
wrk.method = "POST"
wrk.path = "/auth/v1/token?grant_type=refresh_token"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["apikey"] = "bench"
wrk.body = '{"refresh_token":"@REFRESH_TOKEN@"}'
