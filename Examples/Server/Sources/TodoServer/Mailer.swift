/// A message to a user.
struct Mail: Sendable, Equatable {
    /// The user it goes to.
    let to: String
    /// Its subject line, which is all the example sends.
    let subject: String
}

/// Sends mail: in a real server, a client of an SMTP server or of a mail service's HTTP API.
protocol Mailer: Sendable {
    /// Sends `mail`, or gives up quietly.
    func send(_ mail: Mail) async
}

/// The mailer the server runs with: it prints each mail, since the example has no mail service.
struct ConsoleMailer: Mailer {
    func send(_ mail: Mail) async {
        printNow("mail to \(mail.to): \(mail.subject)")
    }
}
