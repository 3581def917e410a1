-- Supabase password sign-in (grant_type=password) for one seeded user.
wrk.method = "POST"
wrk.path = "/auth/v1/token?grant_type=password"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["apikey"] = "bench"
wrk.body = '{"email":"alice@example.com","password":"password123"}'
