import Dirk
import DirkTestSupport
import Testing

/// Review R2 (issue 83): `fresh` answers only the calls that its own closure makes directly, in the
/// task that called it, for as long as that call is under way. A task that the closure starts, and
/// any task started later, gets the cached instance, whatever address the runtime gives its task.
@Suite("fresh answers only its own closure's calls, never a later task's")
struct FreshIdentityTests {
    /// The cached provider that the tests ask for afresh: a synchronous `single` or an async one.
    enum CachedProvider: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case single, asyncSingle

        var testDescription: String { rawValue }

        func resolve(_ component: FreshIdentityComponent) async -> Thing {
            switch self {
            case .single: component.identity.single()
            case .asyncSingle: await component.identity.asyncSingle()
            }
        }
    }

    @Test(
        "a Task started inside an async fresh closure that calls the provider after fresh returned gets the cached instance",
        arguments: CachedProvider.allCases, [false, true])
    func taskCallingAfterFreshReturned(_ provider: CachedProvider, observed: Bool) async {
        let component = FreshIdentityComponent()
        if observed { component.startRecordingDependencies() }
        let cached = await provider.resolve(component)
        let got = await withAsyncWatchdog { () async -> (copy: Thing, later: Thing) in
            let freshReturned = Latch()
            let (copy, later) = await component.identity.fresh { _ in
                let later = Task {
                    await freshReturned.wait()
                    return await provider.resolve(component)
                }
                return (await provider.resolve(component), later)
            }
            freshReturned.open()
            return (copy, await later.value)
        }
        #expect(got.map { $0.copy !== cached } == true, "the closure's own call built anew")
        #expect(
            got.map { $0.later === cached } == true, "the Task's call, made after fresh returned, built anew")
    }

    @Test(
        "a task that starts after the fresh call's task ended never gets a fresh instance, 1,000 rounds",
        arguments: CachedProvider.allCases)
    func laterTaskNeverAnswered(_ provider: CachedProvider) async {
        // The fresh call's task ends, and is released, before the Task its closure started starts
        // another; a finished task's address is often given to the next task. The component is
        // observed, so that every call takes the whole pipeline, where `fresh` is asked.
        let component = FreshIdentityComponent()
        component.startRecordingDependencies()
        let cached = await provider.resolve(component)
        let answered = await withAsyncWatchdog { () async -> Int in
            var answered = 0
            for _ in 0..<1_000 {
                let starterMayGoOn = Latch()
                let starter = await Task {
                    await component.identity.fresh { _ in
                        await Task.yield()
                        return Task {
                            await starterMayGoOn.wait()
                            return await Task { await provider.resolve(component) }.value
                        }
                    }
                }.value
                starterMayGoOn.open()
                if await starter.value !== cached { answered += 1 }
            }
            return answered
        }
        #expect(answered == 0, "calls of later tasks that a fresh call, ended before they began, answered")
    }
}

// MARK: Fixtures

final class FreshIdentityComponent: Component, @unchecked Sendable {
    let counter = Counter()
    var identity: FreshIdentityModule { module() }
}

final class FreshIdentityModule: Module<FreshIdentityComponent> {
    func single() -> Thing { single { c in Thing(c.counter) } }

    func asyncSingle() async -> Thing {
        await single { c in
            await Task.yield()
            return Thing(c.counter)
        }
    }
}
