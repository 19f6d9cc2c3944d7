/// Opens once; tasks that wait for it before then resume when it does. Safe to open from a thread.
public final class Latch: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    public init() {
        (stream, continuation) = AsyncStream.makeStream()
    }

    /// Lets every waiting task, and every later one, go on.
    public func open() {
        continuation.finish()
    }

    /// Suspends until the latch opens.
    public func wait() async {
        for await _ in stream {}
    }
}
