import Foundation

#if canImport(Glibc)
import Glibc

private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
import Darwin

private let streamSocket = SOCK_STREAM
#endif

/// An HTTP/1.1 connection to the server on 127.0.0.1, over a blocking socket, kept alive from one
/// request to the next. Each read and each write waits for at most `timeout`, as with Python's
/// `http.client`.
///
/// `send` makes a whole request and reads its response. The checks that need it send a request in
/// parts instead (`begin`, `write`), stop in the middle, and watch for the server to close the
/// connection (`closed(within:)`). One thread uses a connection at a time; `close()` ends it.
struct HTTPConnection: Sendable {
    /// A response, read whole.
    struct Response: Sendable {
        let status: Int
        /// The status line, such as `HTTP/1.1 201 Created`.
        let statusLine: String
        let body: String

        /// The body, decoded from JSON.
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try JSONDecoder().decode(type, from: Data(body.utf8))
        }
    }

    /// A call on the socket that failed, with its `errno`.
    struct SocketError: Error, CustomStringConvertible {
        let call: String
        let code: Int32

        var description: String { "\(call): \(String(cString: strerror(code)))" }
    }

    private let descriptor: Int32
    private let port: Int
    private let timeout: Double
    /// What has been read and not yet parsed.
    private var unread: [UInt8] = []

    /// Connects to the server's `port` on 127.0.0.1.
    ///
    /// - Throws: `SocketError`; see `isRefused`.
    init(port: Int, timeout: Double = 30) throws {
        self.port = port
        self.timeout = timeout
        descriptor = socket(AF_INET, streamSocket, 0)
        guard descriptor >= 0 else { throw SocketError(call: "socket", code: errno) }
        // Not inherited by the servers this run starts.
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        var noDelay: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        setTimeout(timeout)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian  // 127.0.0.1
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = SocketError(call: "connect", code: errno)
            close()
            throw error
        }
    }

    /// Sends one request on a connection of its own, as curl would, and closes it.
    static func send(
        _ method: String, _ path: String, port: Int, as user: String?, json: String? = nil, timeout: Double
    ) throws -> Response {
        var connection = try HTTPConnection(port: port, timeout: timeout)
        defer { connection.close() }
        return try connection.send(method, path, as: user, json: json)
    }

    /// Sends a request on behalf of `user` (with no `X-User` header when `nil`), with an optional
    /// JSON body, and reads its response.
    mutating func send(_ method: String, _ path: String, as user: String?, json: String? = nil) throws
        -> Response
    {
        try begin(method, path, as: user, contentLength: json?.utf8.count, body: Array((json ?? "").utf8))
        return try readResponse()
    }

    /// Sends a request's head, with a JSON body of `contentLength` bytes to come (a chunked one when
    /// `nil` and `chunked`), and `body`, the whole body or its first part.
    func begin(
        _ method: String, _ path: String, as user: String?, contentLength: Int?, chunked: Bool = false,
        body: some Collection<UInt8> = []
    ) throws {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        if let user { head += "X-User: \(user)\r\n" }
        if contentLength != nil || chunked { head += "Content-Type: application/json\r\n" }
        if let contentLength { head += "Content-Length: \(contentLength)\r\n" }
        if chunked { head += "Transfer-Encoding: chunked\r\n" }
        try write(Array((head + "\r\n").utf8) + body)
    }

    /// Sends bytes: the rest of a request's body, or chunks of a chunked one with their framing.
    func write(_ bytes: some Collection<UInt8>) throws {
        let bytes = Array(bytes)
        var sent = 0
        while sent < bytes.count {
            // A connection the server closed fails the call: `Harness` ignores SIGPIPE.
            let count = bytes[sent...].withUnsafeBytes { systemSend(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw SocketError(call: "send", code: errno) }
            sent += count
        }
    }

    /// Whether the server has sent something not read yet, or closed the connection: whether a read
    /// would not wait.
    func hasSomethingToRead() -> Bool {
        var readable = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return !unread.isEmpty || poll(&readable, 1, 0) > 0
    }

    /// Reads a response, whose body has a `Content-Length`, is chunked, or ends with the connection.
    mutating func readResponse() throws -> Response {
        let head = try readThrough([13, 10, 13, 10])
        let lines = String(decoding: head.dropLast(4), as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines[0]
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw CheckFailure("the server answered with a status line '\(statusLine)'")
        }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body: [UInt8] = []
        if status == 204 || status == 304 || (100..<200).contains(status) {
            // No body.
        } else if fields["transfer-encoding"]?.lowercased() == "chunked" {
            while true {
                let sizeLine = String(decoding: try readThrough([13, 10]).dropLast(2), as: UTF8.self)
                guard let size = Int(sizeLine.prefix { $0 != ";" }, radix: 16) else {
                    throw CheckFailure("the server sent a chunk of size '\(sizeLine)'")
                }
                if size == 0 {
                    while try readThrough([13, 10]).count > 2 {}  // trailers, up to an empty line
                    break
                }
                body += try read(count: size)
                _ = try read(count: 2)
            }
        } else if let length = fields["content-length"].flatMap({ Int($0) }) {
            body = try read(count: length)
        } else {
            body = try readToEnd()
        }
        return Response(status: status, statusLine: statusLine, body: String(decoding: body, as: UTF8.self))
    }

    /// Whether the server closes the connection, or resets it, within `seconds`, whatever it sends
    /// before.
    mutating func closed(within seconds: Double) -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        defer { setTimeout(timeout) }
        while ContinuousClock.now < deadline {
            setTimeout((deadline - .now).inSeconds)
            do {
                if try !fill() { return true }
            } catch let error as SocketError where error.code == ECONNRESET {
                return true
            } catch {
                return false
            }
        }
        return false
    }

    func close() {
        systemClose(descriptor)
    }

    /// Sets how long each read and write may wait: at least 1 ms, as 0 would be for ever.
    private func setTimeout(_ seconds: Double) {
        let seconds = max(seconds, 0.001)
        var time = timeval()
        time.tv_sec = Int(seconds)
        time.tv_usec = .init((seconds - seconds.rounded(.down)) * 1_000_000)
        let size = socklen_t(MemoryLayout<timeval>.size)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, size)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &time, size)
    }

    /// Reads more of what the server sent into `unread`; `false` once the server has closed the
    /// connection.
    ///
    /// - Throws: `SocketError`; EAGAIN once `timeout` has passed with nothing to read.
    private mutating func fill() throws -> Bool {
        try withUnsafeTemporaryAllocation(byteCount: 16_384, alignment: 1) { buffer in
            while true {
                let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else {
                    throw errno == EAGAIN
                        ? CheckFailure(
                            "nothing came from the server within \(String(format: "%g", timeout)) s")
                        : SocketError(call: "recv", code: errno) as any Error
                }
                unread += buffer[..<count]
                return count > 0
            }
        }
    }

    /// The bytes up to and including the first `separator`.
    private mutating func readThrough(_ separator: [UInt8]) throws -> [UInt8] {
        var searched = 0
        while true {
            if let range = unread[max(0, searched - separator.count)...].firstRange(of: separator) {
                defer { unread.removeSubrange(..<range.upperBound) }
                return Array(unread[..<range.upperBound])
            }
            searched = unread.count
            guard try fill() else { throw CheckFailure("the server closed the connection in a response") }
        }
    }

    /// The next `count` bytes.
    private mutating func read(count: Int) throws -> [UInt8] {
        while unread.count < count {
            guard try fill() else { throw CheckFailure("the server closed the connection in a response") }
        }
        defer { unread.removeSubrange(..<count) }
        return Array(unread[..<count])
    }

    /// The bytes up to the end of the connection.
    private mutating func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { unread = [] }
        return unread
    }
}

/// Whether `error` says that nothing listens on the address a connection was for.
func isRefused(_ error: any Error) -> Bool {
    (error as? HTTPConnection.SocketError)?.code == ECONNREFUSED
}

/// The C library's `send` and `close`, which `HTTPConnection`'s methods of the same names hide.
private func systemSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.send(descriptor, bytes, count, 0)
    #else
    Darwin.send(descriptor, bytes, count, 0)
    #endif
}

private func systemClose(_ descriptor: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(descriptor)
    #else
    _ = Darwin.close(descriptor)
    #endif
}
