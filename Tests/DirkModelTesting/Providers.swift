import Dirk

/// The providers of a component of the program: one method serves them all, each provider its own
/// identity through a `ProviderID` made from its index and strategy, as a helper that calls a
/// strategy for several providers passes one.
final class ModelModule: Module<ModelComponent> {
    /// The synchronous provider `index`, with `key` for a keyed one.
    func node(_ index: Int, key: Int) throws(ModelFault) -> Node {
        let spec = component.providers[index]
        let id = ProviderID(line: UInt(index + 1), column: UInt(spec.strategy.rawValue + 1))
        if spec.throwing {
            let configure: ((Node, ModelComponent) throws(ModelFault) -> Void)? =
                spec.configure == nil ? nil : { node, c throws(ModelFault) in try c.configure(index, node) }
            let close = spec.closes ? Node.close : nil
            switch spec.strategy {
            case .single:
                return try single(
                    { c throws(ModelFault) in try c.make(index, key: 0) }, configure: configure,
                    close: close, id: id)
            case .keyed:
                return try single(
                    key: key, { c throws(ModelFault) in try c.make(index, key: key) },
                    configure: configure, close: close, id: id)
            case .transient:
                return try transient({ c throws(ModelFault) in try c.make(index, key: 0) }, id: id)
            case .weak:
                return try weak(
                    { c throws(ModelFault) in try c.make(index, key: 0) }, configure: configure, id: id)
            case .scoped:
                return try scoped(
                    { c throws(ModelFault) in try c.make(index, key: 0) }, configure: configure, id: id)
            default: preconditionFailure("p\(index) is not synchronous")
            }
        }
        // A factory that cannot throw, and a `configure:` that cannot either: a ring's waits, inside
        // another build's factory, until the factories under way on the thread return.
        let configure: ((Node, ModelComponent) -> Void)? =
            spec.configure == nil ? nil : { node, c in try? c.configure(index, node) }
        let close = spec.closes ? Node.close : nil
        switch spec.strategy {
        case .single:
            return single({ c in c.makeSafely(index, key: 0) }, configure: configure, close: close, id: id)
        case .keyed:
            return single(
                key: key, { c in c.makeSafely(index, key: key) }, configure: configure, close: close, id: id)
        case .transient: return transient({ c in c.makeSafely(index, key: 0) }, id: id)
        case .weak: return weak({ c in c.makeSafely(index, key: 0) }, configure: configure, id: id)
        case .scoped: return scoped({ c in c.makeSafely(index, key: 0) }, configure: configure, id: id)
        default: preconditionFailure("p\(index) is not synchronous")
        }
    }

    /// The async provider `index`. One that can throw throws any error, so that a task waiting for
    /// its build stops waiting when it is cancelled.
    func asyncNode(_ index: Int, key: Int) async throws -> Node {
        let spec = component.providers[index]
        let id = ProviderID(line: UInt(index + 1), column: UInt(spec.strategy.rawValue + 1))
        let close = spec.closes ? Node.close : nil
        if spec.throwing {
            let configure: ((Node, ModelComponent) async throws -> Void)? =
                spec.configure == nil ? nil : { node, c in try await c.configureAsync(index, node) }
            switch spec.strategy {
            case .asyncSingle:
                return try await single(
                    { c in try await c.makeAsync(index, key: 0) }, configure: configure,
                    close: close, id: id)
            case .asyncKeyed:
                return try await single(
                    key: key, { c in try await c.makeAsync(index, key: key) },
                    configure: configure, close: close, id: id)
            case .asyncTransient:
                return try await transient({ c in try await c.makeAsync(index, key: 0) }, id: id)
            case .asyncScoped: return try await scoped({ c in try await c.makeAsync(index, key: 0) }, id: id)
            default: preconditionFailure("p\(index) is not async")
            }
        }
        let configure: ((Node, ModelComponent) async -> Void)? =
            spec.configure == nil ? nil : { node, c in try? await c.configureAsync(index, node) }
        func make(_ c: ModelComponent, _ key: Int) async -> Node {
            do { return try await c.makeAsync(index, key: key) } catch {
                preconditionFailure("a factory that cannot throw threw \(error)")
            }
        }
        switch spec.strategy {
        case .asyncSingle:
            return await single({ c in await make(c, 0) }, configure: configure, close: close, id: id)
        case .asyncKeyed:
            return await single(
                key: key, { c in await make(c, key) }, configure: configure, close: close, id: id)
        case .asyncTransient: return await transient({ c in await make(c, 0) }, id: id)
        case .asyncScoped: return await scoped({ c in await make(c, 0) }, id: id)
        default: preconditionFailure("p\(index) is not async")
        }
    }
}

/// The main-actor providers of a component of the program.
final class ModelScreens: MainActorModule<ModelComponent> {
    func node(_ index: Int, key: Int) throws(ModelFault) -> Node {
        let spec = component.providers[index]
        let id = ProviderID(line: UInt(index + 1), column: UInt(spec.strategy.rawValue + 1))
        var configure: (@MainActor (Node, ModelComponent) throws(ModelFault) -> Void)?
        if spec.configure != nil {
            configure = { node, c throws(ModelFault) in try c.configure(index, node) }
        }
        var close: (@MainActor (Node) async throws -> Void)?
        if spec.closes { close = { node in node.closeInItsComponent() } }
        switch spec.strategy {
        case .mainSingle:
            return try single(
                { c throws(ModelFault) in try c.makeOnMainActor(index, key: 0) },
                configure: configure, close: close, id: id)
        case .mainKeyed:
            return try single(
                key: key, { c throws(ModelFault) in try c.makeOnMainActor(index, key: key) },
                configure: configure, close: close, id: id)
        case .mainTransient:
            return try transient({ c throws(ModelFault) in try c.makeOnMainActor(index, key: 0) }, id: id)
        case .mainWeak:
            return try weak(
                { c throws(ModelFault) in try c.makeOnMainActor(index, key: 0) }, configure: configure, id: id
            )
        case .mainScoped:
            return try scoped(
                { c throws(ModelFault) in try c.makeOnMainActor(index, key: 0) },
                configure: configure, id: id)
        default: preconditionFailure("p\(index) is not main-actor")
        }
    }
}

extension Node {
    /// What a close action does: records, in the world, that it closed this node.
    func closeInItsComponent() { world?.closed(self) }

    /// The close action of every provider that has one.
    static let close: (@Sendable (Node) async throws -> Void)? = { $0.closeInItsComponent() }
}
