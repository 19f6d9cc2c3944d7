import Dirk
import DirkTestSupport
import Testing

/// A `scoped` build that fails, or that a failure around it drops, leaves nothing in its
/// component: a long-lived component whose `scoped` provider keeps failing keeps what it kept.
@Suite("A failed scoped build leaves nothing behind")
struct FailedScopedBuildTests {
    @Test(
        "10,000 failing scoped calls on one component leave it keeping what it kept before",
        arguments: FailingScopedCall.allCases)
    func failingCallsKeepNothing(call: FailingScopedCall) async {
        let component = FailingScopeComponent()
        // One call first, so that what the provider keeps for good (its record of its strategy) is
        // there before counting.
        await call.fail(1, on: component)
        let before = component.liveCellCount
        await call.fail(10_000, on: component)
        #expect(component.liveCellCount == before, "\(call): the component kept more after the failures")
        // The provider still works, and gives each resolution its own instance.
        #expect(component.failing.plainScoped() !== component.failing.plainScoped())
    }
}

/// A way for a `scoped` build to fail, or be dropped.
enum FailingScopedCall: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Its factory throws, in a thread's resolution.
    case factoryThrows
    /// Its `configure:` throws.
    case configureThrows
    /// It is built inside another provider's `configure:`, which then throws: the build is dropped.
    case droppedByEnclosingConfigure
    /// An async `scoped` whose factory throws, each call an async resolution of its own.
    case asyncFactoryThrows
    /// The same, in many async resolutions under way at once.
    case asyncFactoryThrowsAtOnce
    /// A synchronous `scoped` whose factory throws, called many times inside one async resolution.
    case throwsInsideOneAsyncResolution

    var testDescription: String { rawValue }

    /// Makes `count` failing calls: outermost calls one after another, or at once, or all inside one
    /// async resolution.
    func fail(_ count: Int, on component: FailingScopeComponent) async {
        let failing = component.failing
        switch self {
        case .throwsInsideOneAsyncResolution:
            _ = try? await failing.throwingInside(count)
        case .asyncFactoryThrowsAtOnce:
            // Resolutions under way at once, each building under a number of its own.
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<count { group.addTask { _ = try? await component.failing.asyncThrowing() } }
            }
        default:
            for _ in 0..<count { await failOnce(failing) }
        }
    }

    private func failOnce(_ failing: FailingScopeModule) async {
        switch self {
        case .factoryThrows: _ = try? failing.throwing()
        case .configureThrows: _ = try? failing.throwingConfigure()
        case .droppedByEnclosingConfigure: _ = try? failing.dropsScoped()
        default: _ = try? await failing.asyncThrowing()
        }
    }
}

struct ScopeFailure: Error {}

final class FailingScopeComponent: Component, @unchecked Sendable {
    var failing: FailingScopeModule { module() }
}

final class FailingScopeModule: Module<FailingScopeComponent> {
    func plainScoped() -> Thing { scoped { Thing() } }

    func throwing() throws(ScopeFailure) -> Thing {
        try scoped { () throws(ScopeFailure) in throw ScopeFailure() }
    }

    func throwingConfigure() throws(ScopeFailure) -> Thing {
        try scoped(
            { () throws(ScopeFailure) in Thing() },
            configure: { _, _ throws(ScopeFailure) in throw ScopeFailure() })
    }

    func dropsScoped() throws(ScopeFailure) -> Thing {
        try single(
            { () throws(ScopeFailure) in Thing() },
            configure: { thing, c throws(ScopeFailure) in
                thing.link = c.failing.plainScoped()
                throw ScopeFailure()
            })
    }

    func asyncThrowing() async throws(ScopeFailure) -> Thing {
        try await scoped { _ async throws(ScopeFailure) in
            await Task.yield()
            throw ScopeFailure()
        }
    }

    /// Calls `throwing()` `count` times inside one async resolution.
    func throwingInside(_ count: Int) async throws(ScopeFailure) -> Thing {
        try await transient { c async throws(ScopeFailure) in
            await Task.yield()
            for _ in 0..<count { _ = try? c.failing.throwing() }
            throw ScopeFailure()
        }
    }
}
