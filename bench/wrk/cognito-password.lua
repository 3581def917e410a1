-- Cognito InitiateAuth USER_PASSWORD_AUTH. The Authorization header names the service, as a signed AWS request
-- does (moto_server routes by it; Fauxth ignores it).
wrk.method = "POST"
wrk.path = "/"
wrk.headers["Content-Type"] = "application/x-amz-json-1.1"
wrk.headers["X-Amz-Target"] = "AWSCognitoIdentityProviderService.InitiateAuth"
wrk.headers["Authorization"] = "AWS4-HMAC-SHA256 Credential=x/20260101/@REGION@/cognito-idp/aws4_request, SignedHeaders=host, Signature=0"
wrk.body = '{"AuthFlow":"USER_PASSWORD_AUTH","ClientId":"@CLIENT_ID@","AuthParameters":{"USERNAME":"@USERNAME@","PASSWORD":"@PASSWORD@"}}'
