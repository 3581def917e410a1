-- The ceiling: the control API's health answer, the least work our HTTP stack can do.
wrk.method = "GET"
wrk.path = "/_emu/v1/health"
