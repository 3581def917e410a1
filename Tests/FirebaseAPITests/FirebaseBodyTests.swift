import Testing
@testable import FirebaseAPI

/// Snake-case field names (a form body's `grant_type`, `refresh_token`) read as the camel-case ones the API names.
@Suite struct FirebaseBodyTests {
    @Test(arguments: [
        ("grant_type", "grantType"), ("refresh_token", "refreshToken"), ("already", "already"), ("_a_b", "aB"), ("a__b", "aB"),
        ("a_", "a"), ("a_1b", "a1b"), ("x_Y_z", "xYZ"), ("ünï_cödé", "ünïCödé"),
    ])
    func snakeCaseNamesBecomeCamelCase(_ name: String, _ expected: String) {
        #expect(FirebaseBody.camelCase(name) == expected)
    }
}
