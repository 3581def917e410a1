import AuthCore
import Foundation
import Testing
@testable import Sinks

/// The SMTP conversation as a state machine, without sockets.
@Suite struct SMTPSessionTests {
    func run(_ lines: [String], session: inout SMTPSession) -> [SMTPSession.Step] {
        lines.map { session.receive(Array($0.utf8)) }
    }

    @Test func aWholeConversationDeliversTheMessage() {
        var session = SMTPSession()
        let steps = run(["EHLO client.example", "MAIL FROM:<app@example.com> SIZE=120", "RCPT TO:<a@example.com>", "RCPT TO:<b@example.com>",
                         "DATA", "Subject: Hi", "", "..leading dot", "body", ".", "QUIT"], session: &session)
        #expect(steps[0].replies.first == "250-fauxth Hello client.example")
        #expect(steps[0].replies.contains("250-AUTH PLAIN LOGIN"))
        #expect(steps[4].replies == ["354 End data with <CR><LF>.<CR><LF>"])
        let delivered = steps[9].delivered
        #expect(delivered?.from == "app@example.com")
        #expect(delivered?.recipients == ["a@example.com", "b@example.com"])
        #expect(delivered.map { String(decoding: $0.data, as: UTF8.self) } == "Subject: Hi\r\n\r\n.leading dot\r\nbody\r\n")
        #expect(steps[10] == SMTPSession.Step(replies: ["221 2.0.0 Bye"], close: true))
    }

    @Test func commandsOutOfOrderAreRefusedAndRsetStartsOver() {
        var session = SMTPSession()
        let steps = run(["HELO x", "RCPT TO:<a@b>", "DATA", "MAIL FROM:<a@b>", "MAIL FROM:<c@d>", "DATA", "RSET", "RCPT TO:<a@b>", "NOOP", "FOO"],
                        session: &session)
        #expect(steps.map { $0.replies.first?.prefix(3) } == ["250", "503", "503", "250", "503", "503", "250", "503", "250", "500"])
    }

    @Test func anyCredentialsAuthenticate() {
        var session = SMTPSession()
        #expect(run(["AUTH PLAIN AGFwcABzZWNyZXQ="], session: &session)[0].replies == ["235 2.7.0 Authentication successful"])
        #expect(run(["AUTH LOGIN", "dXNlcg==", "cGFzcw=="], session: &session).map(\.replies)
                == [["334 VXNlcm5hbWU6"], ["334 UGFzc3dvcmQ6"], ["235 2.7.0 Authentication successful"]])
    }

    @Test func anOversizedMessageIsRefusedAndNothingIsDelivered() {
        var session = SMTPSession(maxSize: 10)
        let steps = run(["MAIL FROM:<a@b>", "RCPT TO:<c@d>", "DATA", "0123456789abcdef", "."], session: &session)
        #expect(steps[4].replies == ["552 5.3.4 Error: message file too big"])
        #expect(steps[4].delivered == nil)
        #expect(run(["MAIL FROM:<a@b> SIZE=11"], session: &session)[0].replies == ["552 5.3.4 Error: message file too big"])
    }
}

@Suite struct MIMEMessageTests {
    func parse(_ text: String) -> MIMEMessage { MIMEMessage.parse(Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8)) }

    @Test func aMultipartAlternativeWithQuotedPrintableAndBase64() {
        let message = parse("""
            From: =?UTF-8?B?w4lxdWlwZQ==?= <team@example.com>
            Subject: =?UTF-8?Q?Votre_code_=E2=80=93?=
             =?UTF-8?Q?_123456?=
            MIME-Version: 1.0
            Content-Type: multipart/alternative; boundary="b1"

            --b1
            Content-Type: text/plain; charset=utf-8
            Content-Transfer-Encoding: quoted-printable

            Caf=C3=A9: your code is 123456. Open https://app.example.com/verify?t=3Dabc=
            &x=3D1
            --b1
            Content-Type: text/html; charset=utf-8
            Content-Transfer-Encoding: base64

            PHA+WW91ciBjb2RlIGlzIDxiPjEyMzQ1NjwvYj48L3A+
            --b1--
            """)
        #expect(message.from == "Équipe <team@example.com>")
        #expect(message.subject == "Votre code – 123456")
        #expect(message.text == "Café: your code is 123456. Open https://app.example.com/verify?t=abc&x=1")
        #expect(message.html == "<p>Your code is <b>123456</b></p>")
    }

    @Test func aMixedMessageKeepsItsBodyAndNamesItsAttachments() {
        let message = parse("""
            Subject: Invoice
            Content-Type: multipart/mixed; boundary=outer

            --outer
            Content-Type: multipart/alternative; boundary=inner

            --inner
            Content-Type: text/plain; charset=iso-8859-1
            Content-Transfer-Encoding: quoted-printable

            Gr=FC=DFe
            --inner--
            --outer
            Content-Type: application/pdf; name="invoice.pdf"
            Content-Disposition: attachment; filename="invoice.pdf"
            Content-Transfer-Encoding: base64

            JVBERi0=
            --outer--
            """)
        #expect(message.text == "Grüße")
        #expect(message.html == nil)
        #expect(message.attachments == ["invoice.pdf"])
    }

    @Test func aPlainMessageWithoutMIMEHeadersIsItsOwnText() {
        let message = parse("Subject: plain\nTo: a@example.com\n\nLine one\nLine two\n")
        #expect(message.text == "Line one\r\nLine two\r\n")
        #expect(message.header("to") == "a@example.com")
    }

    @Test func htmlOnlyMailGetsATextForItsCodes() {
        #expect(AppMessages.plainText("<style>p{}</style><p>Your code:&nbsp;<b>654321</b></p><p>Bye</p>") == "Your code: 654321\nBye")
    }
}
