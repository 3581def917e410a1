-- Firebase accounts:signInWithPassword for one seeded user.
wrk.method = "POST"
wrk.path = "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=fake-api-key"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"email":"alice@example.com","password":"password123","returnSecureToken":true}'
