import Dirk
import DirkTestSupport
import Dispatch
import Foundation
import Testing

/// A cycle through `configure:` that two threads resolve at once is broken by one thread taking
/// the other's half-configured instance. If that instance's `configure:` then throws, the instance
/// is dropped, and the thread that took it must not return or cache what refers to it.
@Suite("A throwing configure: in a cycle across threads")
struct ThrowingConfigureAcrossThreadsTests {
    @Test(
        "a thread that took an instance whose configure: then threw returns nothing that refers to it: its call throws the same error"
    )
    func borrowerThrows() throws {
        let component = CrossComponent()
        let a = Locked<Result<CrossNode, any Error>?>(nil)
        let b = Locked<Result<CrossNode, any Error>?>(nil)
        withWatchdog {
            onThreads(2) { index in
                if index == 0 {
                    let result = Result { try component.cross.a() }
                    a.withLock { $0 = result }
                } else {
                    // Once a's thread runs a's `configure:`.
                    component.aIsConfiguring.wait()
                    let result = Result { try component.cross.b() }
                    b.withLock { $0 = result }
                }
            }
        }
        #expect(throws: CrossFailure.self) { try a.withLock { $0 }?.get() }
        // Whichever thread took the other's instance, `b()`'s `configure:` had `a`, half-configured
        // or as a thrown error: either way `b()` cannot return.
        #expect(throws: CrossFailure.self, "b() returned an instance that refers to a dropped `a`") {
            try b.withLock { $0 }?.get()
        }
        // Nothing was cached: the next calls build both again, and configure them.
        let newA = try component.cross.a()
        let newB = try component.cross.b()
        #expect(newA.partner === newB && newB.partner === newA)
        #expect(newA.isConfigured && newB.isConfigured)
    }

    @Test(
        "a thread that took an instance built inside a configure: that then threw returns nothing that refers to it"
    )
    func borrowerOfNestedBuildThrows() throws {
        let component = ThrowingNestingComponent()
        let x = Locked<Result<Linked, any Error>?>(nil)
        let z = Locked<Result<Linked, any Error>?>(nil)
        withWatchdog {
            onThreads(2) { index in
                if index == 0 {
                    let result = Result { try component.nesting.x() }
                    x.withLock { $0 = result }
                } else {
                    // Once x's thread has built y, inside x's `configure:`.
                    component.yIsBuilt.wait()
                    let result = Result { try component.nesting.z() }
                    z.withLock { $0 = result }
                }
            }
        }
        #expect(throws: CrossFailure.self) { try x.withLock { $0 }?.get() }
        #expect(throws: CrossFailure.self, "z() returned an instance that refers to y, and y to a dropped x")
        {
            try z.withLock { $0 }?.get()
        }
        // Nothing that refers to the dropped x was cached: the next calls build all three again.
        let newX = try component.nesting.x()
        let newZ = try component.nesting.z()
        #expect(newX.unconfiguredReach == [] && newZ.unconfiguredReach == [])
        withExtendedLifetime(component) {}
    }

    @Test("a provider that throws nothing and whose resolution took such an instance stops with the reason")
    func nonThrowingBorrowerStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            // The stop needs `b()`'s thread to take `a`, which the delays make likely; the next
            // attempt, with a new component, if it did not.
            for _ in 0..<10 {
                let component = CrossComponent()
                onThreads(2) { index in
                    if index == 0 {
                        _ = try? component.cross.a()
                    } else {
                        component.aIsConfiguring.wait()
                        _ = component.cross.holder()
                    }
                }
            }
        }
        let message = standardError(of: result)
        let trap = message.split(separator: "\n").first { $0.contains("Fatal error: Dirk:") } ?? ""
        #expect(trap.hasPrefix("DirkTests/ThrowingConfigureAcrossThreadsTests.swift:"), "reported at \(trap)")
        #expect(message.contains("Dirk: `CrossModule.holder()` of `CrossComponent`"), "\(message)")
        #expect(message.contains("took the half-configured instance of `CrossModule.a()`"))
        #expect(message.contains("CrossFailure"))
        #expect(message.contains("Let `CrossModule.holder()` throw the error"))
    }
}

struct CrossFailure: Error {}

final class CrossNode: @unchecked Sendable {
    /// Weak: the component keeps both nodes, which would otherwise form a retain cycle.
    weak var partner: CrossNode?
    var isConfigured = false
}

/// Holds what `b()` gave, if anything.
final class CrossHolder: Sendable {
    let b: CrossNode?
    init(b: CrossNode?) { self.b = b }
}

final class CrossComponent: Component, @unchecked Sendable {
    let aIsConfiguring = DispatchSemaphore(value: 0)
    let bIsConfiguring = DispatchSemaphore(value: 0)
    let attempts = Locked(0)
    var cross: CrossModule { module() }
}

/// `a` and `b` refer to each other through `configure:`; `a`'s first `configure:` throws after
/// it has `b`. Each thread starts at one end: `a`'s thread lets `b`'s start once it configures `a`,
/// and waits for `b`, which `b`'s thread configures; `b`'s `configure:` lingers, so that `a`'s
/// thread waits for `b` before `b`'s thread asks for `a`, closing the cycle.
final class CrossModule: Module<CrossComponent>, @unchecked Sendable {
    func a() throws -> CrossNode {
        try single(
            { CrossNode() },
            configure: { a, c in
                let isFirst = c.attempts.withLock {
                    $0 += 1
                    return $0 == 1
                }
                if isFirst {
                    c.aIsConfiguring.signal()
                    c.bIsConfiguring.wait()
                }
                a.partner = try c.cross.b()
                if isFirst { throw CrossFailure() }
                a.isConfigured = true
            })
    }

    func b() throws -> CrossNode {
        try single(
            { CrossNode() },
            configure: { b, c in
                c.bIsConfiguring.signal()
                usleep(100_000)
                b.partner = try c.cross.a()
                b.isConfigured = true
            })
    }

    func holder() -> CrossHolder {
        single { c in CrossHolder(b: try? c.cross.b()) }
    }
}

final class ThrowingNestingComponent: Component, @unchecked Sendable {
    let yIsBuilt = DispatchSemaphore(value: 0)
    let zIsConfiguring = DispatchSemaphore(value: 0)
    let attempts = Locked(0)
    var nesting: ThrowingNestingModule { module() }
}

/// `x`'s first `configure:` builds `y`, which refers to `x` half-configured, then needs `z`, which
/// another thread is configuring and which needs `y`: that thread takes `y`. Then `x`'s
/// `configure:` throws, dropping `x` and `y` with it.
final class ThrowingNestingModule: Module<ThrowingNestingComponent>, @unchecked Sendable {
    func x() throws -> Linked {
        try single(
            { Linked("x", isConfigured: false) },
            configure: { x, c in
                let isFirst = c.attempts.withLock {
                    $0 += 1
                    return $0 == 1
                }
                x.link(try c.nesting.y())
                if isFirst {
                    c.yIsBuilt.signal()
                    c.zIsConfiguring.wait()
                }
                x.link(try c.nesting.z())
                if isFirst {
                    // Lingers after `z` is there for the other thread to return.
                    usleep(100_000)
                    throw CrossFailure()
                }
                x.isConfigured = true
            })
    }

    func y() throws -> Linked {
        try single { c in
            let y = Linked("y", isConfigured: true)
            y.link(try c.nesting.x())
            return y
        }
    }

    func z() throws -> Linked {
        try single(
            { Linked("z", isConfigured: false) },
            configure: { z, c in
                c.zIsConfiguring.signal()
                // Lets x's thread start waiting for `z`.
                usleep(50_000)
                z.link(try c.nesting.y())
                z.isConfigured = true
            })
    }
}
