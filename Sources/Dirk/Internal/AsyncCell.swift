/// The cached instance of an `async` single: built at most once at a time, with waiting tasks
/// suspended, never blocking a thread.
///
/// The first task to find the cell empty builds it, inside the task-local chain of async
/// providers it is resolving; tasks that find it building suspend until it is ready or the
/// factory has thrown, then look again. A task whose own chain is building the cell is in a
/// cycle, which stops the program with its path.
final class AsyncCell: @unchecked Sendable {
    // `state` is guarded by its own lock; the waiters' continuations are resumed outside it.
    private let state = Locked<State>.make(State())

    struct State {
        var phase = Phase.empty
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    enum Phase {
        case empty
        case building(AsyncChain)
        case ready(AnyObject)
    }

    /// The cached object, or the one `make` builds.
    func resolve(
        frame: Frame, make: () async throws -> AnyObject
    ) async rethrows -> AnyObject {
        let chain = AsyncChain.current
        while true {
            let step: Phase = state.withLock { state in
                switch state.phase {
                case .ready, .building:
                    return state.phase
                case .empty:
                    state.phase = .building(AsyncChain(frame: frame, parent: chain))
                    return .empty
                }
            }
            switch step {
            case .ready(let value):
                return value
            case .building(let builder):
                if let chain, chain.contains(builder) {
                    Diagnostics.cycle(path: chain.path(from: builder.frame) + [frame.name], at: frame)
                }
                await waitWhileBuilding()
            case .empty:
                let link = AsyncChain(frame: frame, parent: chain)
                do {
                    let value = try await AsyncChain.$current.withValue(link) { try await make() }
                    settle(.ready(value))
                    return value
                } catch {
                    settle(.empty)
                    throw error
                }
            }
        }
    }

    /// Whether the cell holds a value now.
    var hasValue: Bool {
        state.withLock { state in
            if case .ready = state.phase { return true }
            return false
        }
    }

    /// Drops the cached value; returns it for the caller to release outside the lock. A cell being
    /// built is left to finish.
    func reset() -> AnyObject? {
        state.withLock { state in
            guard case .ready(let value) = state.phase else { return nil }
            state.phase = .empty
            return value
        }
    }

    private func settle(_ phase: Phase) {
        let waiters = state.withLock { state in
            state.phase = phase
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func waitWhileBuilding() async {
        await withCheckedContinuation { continuation in
            let waits = state.withLock { state in
                guard case .building = state.phase else { return false }
                state.waiters.append(continuation)
                return true
            }
            if !waits { continuation.resume() }
        }
    }
}

/// The async providers a task is building, innermost first: what cycle detection follows across
/// suspension points, where a thread's resolution stack cannot.
final class AsyncChain: @unchecked Sendable {
    @TaskLocal static var current: AsyncChain?

    // Immutable. A frame's owner is only compared and named, and lives while its provider runs.
    let frame: Frame
    let parent: AsyncChain?

    init(frame: Frame, parent: AsyncChain?) {
        self.frame = frame
        self.parent = parent
    }

    /// Whether `link` is this link or one it was built from.
    func contains(_ link: AsyncChain) -> Bool {
        var current: AsyncChain? = self
        while let candidate = current {
            if candidate === link || candidate.frame.isSame(as: link.frame) { return true }
            current = candidate.parent
        }
        return false
    }

    /// The names from the outermost link that builds `start` to this one.
    func path(from start: Frame) -> [String] {
        var names: [String] = []
        var current: AsyncChain? = self
        while let link = current {
            names.append(link.frame.name)
            if link.frame.isSame(as: start) { break }
            current = link.parent
        }
        return names.reversed()
    }
}
