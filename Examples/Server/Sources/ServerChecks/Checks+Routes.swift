import Foundation

extension Checks {
    /// Starts the server with `swift run`, on a database file of its own, and checks that it is the
    /// TodoServer executable, says where it listens, and listens on 127.0.0.1 only.
    ///
    /// - Returns: The server, and the executable's path, which later starts run.
    func startWithSwiftRun() -> (server: Server, executable: String) {
        say("starting the server with swift run on port \(port), with its todos in \(database)")
        return harness.step("starting the server", limit: 90) {
            // `swift run` replaces itself with the server, so the process is the server's.
            let server = try startServer(
                settings.startCommand, log: "server.log", environment: ["TODO_DATABASE": database])
            let id = server.process.id
            let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(id)/exe")
            try expect(executable.hasSuffix("/TodoServer"), "process \(id) is \(executable), not the server")
            try expect(
                try server.output().contains("TodoServer listening on \(server.url)"),
                "the server did not print 'TodoServer listening on \(server.url)'")
            let listening = listeningAddresses(port: port)
            try expect(
                listening == ["127.0.0.1:\(port)"],
                "the server listens on \(listening), not 127.0.0.1:\(port) alone")
            return (server, executable)
        }
    }

    /// Sends each route a request, among them a few refused on purpose (401, 400, 404), each on a
    /// connection of its own, with 5 s for each read and write.
    ///
    /// - Returns: The todo the requests added, as the server last acknowledged it.
    func routes(of server: Server) -> Ledger {
        harness.step("the requests to each route", limit: 60) {
            func request(_ method: String, _ path: String, as user: String?, json: String? = nil) throws
                -> HTTPConnection.Response
            {
                try HTTPConnection.send(method, path, port: port, as: user, json: json, timeout: 5)
            }
            func expectStatus(_ status: Int, _ response: HTTPConnection.Response, _ what: String) throws {
                try expect(
                    response.status == status,
                    "\(what) answered \(response.status), not \(status): \(response.body)")
            }
            try expectStatus(401, try request("GET", "/todos", as: nil), "GET /todos without X-User")
            let created = try request("POST", "/todos", as: "ci", json: titleJSON("check the server"))
            try expectStatus(201, created, "POST /todos")
            let blank = try request("POST", "/todos", as: "ci", json: titleJSON("  "))
            try expectStatus(400, blank, "POST /todos with a blank title")
            let id = try created.decode(Todo.self).id
            let elsewhere = try request("DELETE", "/todos/\(id)", as: "someone-else")
            try expectStatus(404, elsewhere, "DELETE of another user's todo")
            let listed = try request("GET", "/todos", as: "ci")
            try expectStatus(200, listed, "GET /todos")
            try expect(
                try listed.decode([Todo].self) == [Todo(id: id, title: "check the server")],
                "GET /todos answered \(listed.body)")
            say("GET /todos answered \(listed.body)")
            try expectStatus(200, try request("GET", "/todos/\(id)", as: "ci"), "GET /todos/\(id)")
            let other = try request("GET", "/todos/\(id)", as: "someone-else")
            try expectStatus(404, other, "GET of another user's todo")
            let patched = try request(
                "PATCH", "/todos/\(id)", as: "ci", json: titleJSON("check the server again"))
            try expectStatus(200, patched, "PATCH /todos/\(id)")
            try expect(
                try patched.decode(Todo.self) == Todo(id: id, title: "check the server again"),
                "PATCH /todos/\(id) answered \(patched.body)")
            let tooLong = try request(
                "POST", "/todos", as: "ci", json: titleJSON(String(repeating: "x", count: 201)))
            try expectStatus(400, tooLong, "POST /todos with a title of 201 characters")
            try expect(
                tooLong.body.contains("\"message\""), "a title too long got no message: \(tooLong.body)")
            return Ledger(created: [id: .init(user: "ci", title: "check the server again")])
        }
    }

    /// Uploads 10 MB, chunked, to `POST /todos`: the server answers 413 and closes the connection,
    /// so the client does not hang sending or reading what is left of the body.
    func uploadTooLarge(to server: Server) {
        say("uploading 10 MB, chunked, to POST /todos: 413, and the connection closes")
        harness.step("the 10 MB upload", limit: 40) {
            let started = ContinuousClock.now
            var connection = try HTTPConnection(port: port, timeout: 20)
            defer { connection.close() }
            try connection.begin("POST", "/todos", as: "ci", contentLength: nil, chunked: true)
            // 160 chunks of 62,500 bytes, each with its size in hexadecimal before it, until the
            // server answers, which it does at 16 KiB, or refuses more.
            let chunk =
                Array("f424\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 62_500) + [13, 10]
            for _ in 0..<160 {
                if connection.hasSomethingToRead() { break }
                do { try connection.write(chunk) } catch { break }
            }
            if !connection.hasSomethingToRead() { try? connection.write(Array("0\r\n\r\n".utf8)) }
            let answer = try connection.readResponse()
            try expect(
                answer.status == 413,
                "a 10 MB chunked upload answered \(answer.status), not 413: \(answer.body)")
            try expect(answer.body.contains("\"message\""), "the 413 had no message: \(answer.body)")
            let closed = connection.closed(within: 15)
            let took = ContinuousClock.now - started
            try expect(
                closed && took < .seconds(15), "the 10 MB upload took \(took): the connection stayed open")
            say(
                "the 10 MB upload got 413 in \(took.seconds(decimals: 2)) s, and the connection closed: "
                    + answer.body)
        }
    }

    /// The addresses that listen for TCP connections on `port`, from `/proc/net/tcp` and `tcp6`.
    private func listeningAddresses(port: Int) -> [String] {
        var addresses: [String] = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            let rows = (try? String(contentsOfFile: table, encoding: .utf8))?.split(separator: "\n") ?? []
            // Such as `0: 0100007F:D0B3 00000000:0000 0A …`: the local address and port in
            // hexadecimal, then the remote ones, then the state, 0A for listening.
            for row in rows.dropFirst() {
                let fields = row.split(separator: " ")
                guard fields.count > 3, fields[3] == "0A" else { continue }
                let local = fields[1].split(separator: ":")
                guard local.count == 2, Int(local[1], radix: 16) == port else { continue }
                addresses.append("\(address(hexadecimal: local[0])):\(port)")
            }
        }
        return addresses
    }

    /// An address of `/proc/net/tcp`, dotted for IPv4 (whose bytes come in reverse), in hexadecimal
    /// within brackets for IPv6.
    private func address(hexadecimal: Substring) -> String {
        guard hexadecimal.count == 8, let value = UInt32(hexadecimal, radix: 16) else {
            return "[\(hexadecimal)]"
        }
        return (0..<4).map { String(value >> (8 * $0) & 0xff) }.joined(separator: ".")
    }
}
