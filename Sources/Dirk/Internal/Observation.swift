/// What Dirk tells the observers of a resolution, for `trace(_:)` and `dependencyGraph()`.
///
/// Observation costs nothing while nobody observes: each module keeps a count of observers
/// (`AnyModule.observers`), and a provider call looks further only when it is not zero.
enum Observation {
    /// Reports that `frame`'s provider, using `strategy`, is being resolved on `context`'s thread:
    /// built anew, or found cached.
    static func resolving(
        _ frame: Frame, strategy: String, isNew: Bool, in component: Component, context: ResolutionContext
    ) {
        let requester = context.depth > 0 ? context.frames[context.depth - 1] : nil
        context.traceLines?.append(
            String(repeating: "  ", count: context.depth)
                + "\(frame.name) [\(strategy)] \(isNew ? "new" : "cached")")
        component.withStateLock { state in
            if state.graph != nil { state.graph?.providers[frame.name] = strategy }
        }
        if let requester, let resolver = requester.component {
            resolver.withStateLock { state in
                if state.graph != nil {
                    state.graph?.edges.insert(Edge(from: requester.name, to: frame.name))
                }
            }
        }
    }

    /// One provider that resolved another.
    struct Edge: Hashable {
        let from: String
        let to: String
    }
}

/// What a component records while `recordingDependencies()` is on.
struct DependencyRecord {
    /// Each provider seen, by name, with its strategy.
    var providers: [String: String] = [:]
    var edges: Set<Observation.Edge> = []
}

extension Frame {
    /// The component whose provider the frame runs, or which creates a module.
    var component: Component? {
        let owner = owner.takeUnretainedValue()
        if let component = owner as? Component { return component }
        return (owner as? AnyModule)?.ownerComponent
    }
}
