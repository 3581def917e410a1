-- Supabase sign-up with a new address each time (the confirmation email goes to the outbox).
local threads = 0
setup = function(thread)
  thread:set("tid", threads)
  threads = threads + 1
end
local counter = 0
request = function()
  counter = counter + 1
  local body = string.format('{"email":"bench-@RUN@-%d-%d@example.com","password":"secret123"}', tid, counter)
  return wrk.format("POST", "/auth/v1/signup", {["Content-Type"] = "application/json", ["apikey"] = "bench"}, body)
end
