import Dirk
import DirkTestSupport
import Dispatch
import Foundation
import Testing

@Suite("Waiting for a build, failing and cancelling")
struct WaitingTests {
    @Test("a factory that throws fails every thread waiting for that build with its error, and runs once")
    func sharedFailureAcrossThreads() {
        let component = FailingComponent()
        let gate = Gate()
        component.failing.gate = gate
        let callers = 16
        let errors = LockedBox<[Int]>([])
        withWatchdog {
            DispatchQueue.global().async {
                gate.entered.wait()
                // Every other caller waits for the build under way before it fails.
                component.waitUntil(callers - 1, areWaitingFor: "FailingModule.thing()")
                gate.open()
            }
            onThreads(callers) { _ in
                do {
                    _ = try component.failing.thing()
                } catch {
                    errors.withLock { $0.append(error.attempt) }
                }
            }
        }
        #expect(component.attempts.count == 1)
        #expect(errors.withLock { $0 } == Array(repeating: 1, count: callers))
        component.failing.gate = nil
        #expect((try? component.failing.thing()) != nil, "the next call builds again")
        #expect(component.attempts.count == 2)
    }

    @Test(
        "an async factory that throws fails every task waiting for that build with its error, and runs once")
    func sharedFailureAcrossTasks() async {
        let component = FailingComponent()
        let gate = Latch()
        component.failing.asyncGate = gate
        let callers = 100
        let attempts = await withAsyncWatchdog {
            await withTaskGroup(of: Int?.self) { group in
                for _ in 0..<callers {
                    group.addTask {
                        do {
                            _ = try await component.failing.asyncThing()
                            return nil
                        } catch {
                            return error.attempt
                        }
                    }
                }
                await component.waitUntilAsync(callers - 1, areWaitingFor: "FailingModule.asyncThing()")
                gate.open()
                return await group.reduce(into: [Int?]()) { $0.append($1) }
            }
        }
        #expect(component.attempts.count == 1)
        #expect(attempts == Array(repeating: 1, count: callers))
        component.failing.asyncGate = nil
        #expect((try? await component.failing.asyncThing()) != nil, "the next call builds again")
    }

    @Test("a task waiting for another task's build stops as soon as it is cancelled; the build goes on")
    func cancelledWaitersStop() async throws {
        let component = FailingComponent()
        let gate = Latch()
        component.failing.asyncGate = gate
        component.failing.asyncFails = false
        let builder = Task { try await component.failing.asyncThing() }
        let stopped = await withAsyncWatchdog {
            await component.waitUntilAsync(0, areWaitingFor: "FailingModule.asyncThing()", building: true)
            let waiters = (0..<20).map { _ in Task { try await component.failing.asyncThing() } }
            await component.waitUntilAsync(20, areWaitingFor: "FailingModule.asyncThing()")
            for waiter in waiters { waiter.cancel() }
            var cancelled = 0
            for waiter in waiters {
                do {
                    _ = try await waiter.value
                } catch is CancellationError {
                    cancelled += 1
                } catch {}
            }
            // The build is still held at its gate (checked below), so the waiters stopped
            // without it.
            return cancelled
        }
        #expect(stopped == 20, "every cancelled waiter throws CancellationError")
        #expect(
            component.node("FailingModule.asyncThing()")?.builds
                == 1)
        gate.open()
        let built = await withAsyncWatchdog { try? await builder.value }
        let cached = try await component.failing.asyncThing()
        #expect(built.flatMap { $0 } === cached)
        #expect(component.attempts.count == 1)
    }

    @Test("a build ended by its own task's cancellation is not passed on: a waiter not cancelled builds")
    func cancelledBuilderDoesNotFailItsWaiters() async {
        let component = FailingComponent()
        let gate = Latch()
        component.failing.asyncGate = gate
        let provider = "FailingModule.cancellableThing()"
        let outcome = await withAsyncWatchdog { () async -> (builderCancelled: Bool, waited: Thing?) in
            let builder = Task { try await component.failing.cancellableThing() }
            await component.waitUntilAsync(0, areWaitingFor: provider, building: true)
            let waiter = Task { try await component.failing.cancellableThing() }
            await component.waitUntilAsync(1, areWaitingFor: provider)
            builder.cancel()
            gate.open()
            let builderCancelled: Bool
            do {
                _ = try await builder.value
                builderCancelled = false
            } catch {
                builderCancelled = error is CancellationError
            }
            return (builderCancelled, try? await waiter.value)
        }
        #expect(outcome?.builderCancelled == true, "the cancelled builder throws CancellationError")
        #expect(outcome?.waited != nil, "the waiter, which was not cancelled, gets an instance")
        #expect(component.attempts.count == 2, "the waiter built anew")
        #expect((try? await component.failing.cancellableThing()) === outcome?.waited)
    }

    @Test(
        "a cancelled task waiting for a build whose provider cannot throw CancellationError waits and gets the instance",
        arguments: UncancellableWait.allCases)
    func cancelledWaiterOfUncancellableProvider(_ wait: UncancellableWait) async {
        let component = FailingComponent()
        let gate = Latch()
        component.failing.asyncGate = gate
        let provider = wait.providerName
        let instances = await withAsyncWatchdog { () async -> (built: Thing, waited: Thing) in
            let builder = Task { await wait.call(on: component) }
            await component.waitUntilAsync(0, areWaitingFor: provider, building: true)
            let waiter = Task {
                if wait.isCancelledFirst { withUnsafeCurrentTask { $0?.cancel() } }
                return await wait.call(on: component)
            }
            await component.waitUntilAsync(1, areWaitingFor: provider)
            waiter.cancel()
            // The waiter has seen its cancellation, if it ever will, before the build ends.
            try? await Task.sleep(nanoseconds: 20_000_000)
            gate.open()
            return (await builder.value, await waiter.value)
        }
        #expect(instances.map { $0.built === $0.waited } == true, "the waiter gets the instance built")
        #expect(component.attempts.count == 1)
    }
}

// MARK: Fixtures

struct Attempt: Error {
    let number: Int
}

extension Error {
    /// The attempt a fixture's error reports, or -1.
    fileprivate var attempt: Int { (self as? Attempt)?.number ?? -1 }
}

final class FailingComponent: Component, @unchecked Sendable {
    let attempts = Counter()
    var failing: FailingModule { module() }
}

/// A wait for an async `single` whose provider cannot throw `CancellationError`, by a task that is
/// cancelled while it waits or before it starts to.
enum UncancellableWait: String, CaseIterable, Codable, Sendable, CustomTestStringConvertible {
    case throwsNothing, throwsTyped, throwsNothingCancelledFirst

    var testDescription: String { rawValue }

    var isCancelledFirst: Bool { self == .throwsNothingCancelledFirst }

    var providerName: String {
        self == .throwsTyped ? "FailingModule.typedThing()" : "FailingModule.uncancellableThing()"
    }

    func call(on component: FailingComponent) async -> Thing {
        switch self {
        case .throwsNothing, .throwsNothingCancelledFirst: await component.failing.uncancellableThing()
        case .throwsTyped: (try? await component.failing.typedThing()) ?? Thing()
        }
    }
}

final class FailingModule: Module<FailingComponent> {
    nonisolated(unsafe) var gate: Gate?
    nonisolated(unsafe) var asyncGate: Latch?
    nonisolated(unsafe) var asyncFails = true

    func thing() throws -> Thing {
        try single { c in
            let attempt = c.attempts.increment()
            guard let gate = c.failing.gate else { return Thing() }
            gate.pass()
            throw Attempt(number: attempt)
        }
    }

    /// Builds once `asyncGate` opens, and throws nothing.
    func uncancellableThing() async -> Thing {
        await single { c in
            c.attempts.increment()
            await c.failing.asyncGate?.wait()
            return Thing()
        }
    }

    /// Builds once `asyncGate` opens, and throws only `Attempt`, never.
    func typedThing() async throws(Attempt) -> Thing {
        try await single { c async throws(Attempt) in
            let attempt = c.attempts.increment()
            await c.failing.asyncGate?.wait()
            if attempt < 0 { throw Attempt(number: attempt) }
            return Thing()
        }
    }

    /// Builds once `asyncGate` opens, unless its task was cancelled meanwhile.
    func cancellableThing() async throws -> Thing {
        try await single { c in
            c.attempts.increment()
            await c.failing.asyncGate?.wait()
            try Task.checkCancellation()
            return Thing()
        }
    }

    func asyncThing() async throws -> Thing {
        try await single { c in
            let attempt = c.attempts.increment()
            guard let gate = c.failing.asyncGate else { return Thing() }
            await gate.wait()
            if c.failing.asyncFails { throw Attempt(number: attempt) }
            return Thing()
        }
    }
}
