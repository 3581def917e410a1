-- Firebase Secure Token refresh, as the JS SDK sends it (form body); Firebase refresh tokens do not rotate.
wrk.method = "POST"
wrk.path = "/securetoken.googleapis.com/v1/token?key=fake-api-key"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.body = "grant_type=refresh_token&refresh_token=@REFRESH_TOKEN@"
