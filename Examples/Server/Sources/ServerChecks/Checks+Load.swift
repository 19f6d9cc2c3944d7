import Foundation

extension Checks {
    /// A bounded burst of concurrent requests: `REQUESTS` from `CLIENTS` clients, each a user of its
    /// own on a keep-alive connection. Of every 8 requests, 5 add a todo, 2 list the user's todos,
    /// which must be exactly those the client was told it has, and 1 deletes the oldest. Any other
    /// status, or any failed connection, is an error. It prints the requests per second, a smoke
    /// check: nothing about time is asserted.
    func burst(on server: Server, ledger: inout Ledger) {
        let (total, clients, port) = (settings.requests, settings.clients, port)
        say("sending \(total) requests from \(clients) concurrent clients to \(server.url)")
        harness.step("the burst", limit: 600) {
            let started = ContinuousClock.now
            let results = onThreads(clients) { BurstClient.run($0, of: clients, total: total, port: port) }
            let elapsed = ContinuousClock.now - started
            let (posts, gets, deletes) = results.reduce((0, 0, 0)) {
                ($0.0 + $1.posts, $0.1 + $1.gets, $0.2 + $1.deletes)
            }
            let sent = posts + gets + deletes
            let errors = results.compactMap(\.error)
            say(
                "\(sent) requests (\(posts) POST, \(gets) GET, \(deletes) DELETE) from \(clients) clients "
                    + "in \(elapsed.seconds(decimals: 2)) s: \(rate(sent, elapsed)) requests per second, "
                    + "\(errors.count) errors")
            for result in results {
                ledger.created.merge(result.created) { $1 }
                ledger.deleted.formUnion(result.deleted)
            }
            try expect(errors.isEmpty, errors.prefix(10).joined(separator: "\n"))
            try expect(sent == total, "sent \(sent) requests, not \(total)")
        }
    }

    /// A soak: `SOAK_WARMUP` requests to warm up, then `SOAK_REQUESTS` more, mixed (POST, GET one and
    /// all, PATCH, DELETE, GET /audit) from `SOAK_CLIENTS` keep-alive clients, each a user of its own
    /// whose list stays short, so that the database, not the process, holds what grows. The server's
    /// RSS is read after the warm-up and after each tenth of the rest, while no request is under
    /// way; the slope of a least-squares line through those readings must be at most 1 MiB per
    /// 10,000 requests.
    func soak(on server: Server, ledger: inout Ledger) {
        let (warmup, total, count) = (settings.soakWarmup, settings.soakRequests, settings.soakClients)
        let (rounds, limitKiBPer10k) = (10, 1_024.0)
        say("soaking the server: \(warmup) requests to warm up, then \(total), from \(count) clients")
        harness.step("the soak", limit: 300) {
            var clients = try (0..<count).map {
                SoakClient(user: "soak-\($0)", connection: try HTTPConnection(port: port))
            }
            let started = ContinuousClock.now
            clients = try SoakClient.round(warmup, clients)
            var readings = [(requests: 0, kib: try server.memory("VmRSS"))]
            for index in 1...rounds {
                clients = try SoakClient.round(total / rounds, clients)
                readings.append((index * (total / rounds), try server.memory("VmRSS")))
            }
            let elapsed = ContinuousClock.now - started
            for client in clients { client.connection.close() }

            // The least-squares slope of RSS over requests, after the warm-up.
            let xs = readings.map { Double($0.requests) }
            let ys = readings.map { Double($0.kib) }
            let (meanX, meanY) = (xs.reduce(0, +) / Double(xs.count), ys.reduce(0, +) / Double(ys.count))
            let covariance: Double = zip(xs, ys).map { x, y in (x - meanX) * (y - meanY) }.reduce(0, +)
            let variance: Double = xs.map { x in (x - meanX) * (x - meanX) }.reduce(0, +)
            let perTenThousand = covariance / variance * 10_000
            let sent = warmup + rounds * (total / rounds)
            let slope = "\(String(format: "%.0f", perTenThousand)) KiB per 10,000 requests"
            say(
                "soak of \(sent) requests from \(count) clients in \(elapsed.seconds(decimals: 1)) s "
                    + "(\(rate(sent, elapsed)) per second); RSS after the warm-up \(readings[0].kib) KiB, "
                    + "at the end \(readings[readings.count - 1].kib) KiB; "
                    + "readings (KiB) \(readings.map(\.kib))")
            say("RSS slope after the warm-up: \(slope) (at most \(Int(limitKiBPer10k)))")
            for client in clients {
                for (id, title) in client.live { ledger.created[id] = .init(user: client.user, title: title) }
                ledger.deleted.formUnion(client.deleted)
            }
            try expect(
                perTenThousand <= limitKiBPer10k,
                "RSS grew \(slope) after the warm-up, more than \(Int(limitKiBPer10k))")
        }
    }

    /// Requests per second, rounded.
    private func rate(_ requests: Int, _ elapsed: Duration) -> String {
        String(format: "%.0f", Double(requests) / elapsed.inSeconds)
    }
}

/// One client of the burst: what it sent, what the server acknowledged, and what went wrong.
private struct BurstClient: Sendable {
    var posts = 0
    var gets = 0
    var deletes = 0
    var created: [Int: Ledger.Entry] = [:]
    var deleted: [Int] = []
    var error: String?

    /// Sends client `number`'s share of `total` requests, on one connection: requests number,
    /// number + clients, number + 2 × clients, and so on.
    static func run(_ number: Int, of clients: Int, total: Int, port: Int) -> BurstClient {
        var client = BurstClient()
        let user = "load-\(number)"
        var live: [Int: String] = [:]  // what the server acknowledged this user has
        do {
            var connection = try HTTPConnection(port: port)
            defer { connection.close() }
            for index in stride(from: number, to: total, by: clients) {
                let step = index / clients % 8
                if step == 2 || step == 5 {
                    let response = try connection.send("GET", "/todos", as: user)
                    client.gets += 1
                    try expect(
                        response.status == 200,
                        "GET /todos answered \(response.status): \(response.body.prefix(200))")
                    let listed = Dictionary(try response.decode([Todo].self).map { ($0.id, $0.title) }) { $1 }
                    try expect(
                        listed == live,
                        "GET /todos for \(user) listed \(listed.keys.sorted()), not \(live.keys.sorted())")
                } else if step == 7, let oldest = live.keys.min() {
                    let response = try connection.send("DELETE", "/todos/\(oldest)", as: user)
                    client.deletes += 1
                    try expect(
                        response.status == 204,
                        "DELETE /todos/\(oldest) answered \(response.status): \(response.body.prefix(200))")
                    live[oldest] = nil
                    client.deleted.append(oldest)
                } else {
                    let title = "todo \(index) of \(user)"
                    let response = try connection.send("POST", "/todos", as: user, json: titleJSON(title))
                    client.posts += 1
                    try expect(
                        response.status == 201,
                        "POST /todos answered \(response.status): \(response.body.prefix(200))")
                    let todo = try response.decode(Todo.self)
                    try expect(todo.title == title, "POST /todos answered \(response.body) for '\(title)'")
                    live[todo.id] = title
                    client.created[todo.id] = .init(user: user, title: title)
                }
            }
        } catch {
            client.error = "client \(number): \(error)"
        }
        return client
    }
}

/// One client of the soak, a user of its own on one keep-alive connection, which repeats 8 steps:
/// add a todo, read it, rename it, list its todos (which must be those it was told it has), add
/// another, delete its oldest, read its audit entries, delete its oldest again.
private struct SoakClient: Sendable {
    let user: String
    var connection: HTTPConnection
    /// The user's todos, by id, as the server acknowledged them.
    var live: [Int: String] = [:]
    var deleted: [Int] = []
    var step = 0

    /// Sends `count` requests, shared among `clients`, which send at once; returns the clients once
    /// all have finished.
    static func round(_ count: Int, _ clients: [SoakClient]) throws -> [SoakClient] {
        let results = onThreads(clients.count) { index in
            var client = clients[index]
            let share = count / clients.count + (index < count % clients.count ? 1 : 0)
            do {
                for _ in 0..<share { try client.sendOne() }
                return (client, String?.none)
            } catch {
                return (client, "\(client.user): \(error)")
            }
        }
        let errors = results.compactMap(\.1)
        try expect(errors.isEmpty, errors.prefix(10).joined(separator: "\n"))
        return results.map(\.0)
    }

    /// Sends the next request of the 8 steps.
    mutating func sendOne() throws {
        let step = self.step % 8
        self.step += 1
        let title = "todo \(self.step) of \(user): " + String(repeating: "x", count: self.step % 100)
        guard step != 0, step != 4, let oldest = live.keys.min(), let newest = live.keys.max() else {
            let todo = try send("POST", "/todos", json: titleJSON(title), expecting: 201).decode(Todo.self)
            live[todo.id] = todo.title
            return
        }
        switch step {
        case 1:
            let todo = try send("GET", "/todos/\(newest)", expecting: 200).decode(Todo.self)
            try expect(
                todo == Todo(id: newest, title: live[newest] ?? ""),
                "GET /todos/\(newest) is not what was acknowledged")
        case 2:
            let json = titleJSON("renamed " + title)
            live[newest] = try send("PATCH", "/todos/\(newest)", json: json, expecting: 200).decode(Todo.self)
                .title
        case 3:
            let todos = try send("GET", "/todos", expecting: 200).decode([Todo].self)
            let listed = Dictionary(todos.map { ($0.id, $0.title) }) { $1 }
            try expect(listed == live, "GET /todos listed \(listed.keys.sorted()), not \(live.keys.sorted())")
        case 6:
            _ = try send("GET", "/audit", expecting: 200)
        default:
            _ = try send("DELETE", "/todos/\(oldest)", expecting: 204)
            live[oldest] = nil
            deleted.append(oldest)
        }
    }

    private mutating func send(_ method: String, _ path: String, json: String? = nil, expecting status: Int)
        throws -> HTTPConnection.Response
    {
        let response = try connection.send(method, path, as: user, json: json)
        try expect(
            response.status == status,
            "\(method) \(path) answered \(response.status): \(response.body.prefix(200))")
        return response
    }
}
