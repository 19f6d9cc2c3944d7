import Dirk
import DirkTestSupport
import Testing

@Suite("Async single(key:)")
struct AsyncKeyedTests {
    @Test("an async single(key:) keeps one instance per key, and another for each other key")
    func oneInstancePerKey() async throws {
        let component = ProfileComponent()
        let a = try await component.profiles.profile(id: "a")
        #expect(try await component.profiles.profile(id: "a") === a)
        let b = try await component.profiles.profile(id: "b")
        #expect(b !== a)
        #expect(a.id == "a" && b.id == "b")
        #expect(component.loads.count == 2)
    }

    @Test("many tasks asking for a few keys at once make one build per key, and each gets its key's")
    func oneBuildPerKeyUnderConcurrentCallers() async {
        let component = ProfileComponent()
        let byKey = await withAsyncWatchdog {
            await withTaskGroup(of: (String, ObjectIdentifier).self) { group in
                for index in 0..<200 {
                    let id = "user\(index % 4)"
                    group.addTask { (id, ObjectIdentifier(await component.profiles.slowProfile(id: id))) }
                }
                return await group.reduce(into: [String: Set<ObjectIdentifier>]()) {
                    $0[$1.0, default: []].insert($1.1)
                }
            }
        }
        #expect(byKey?.count == 4)
        #expect(byKey?.values.allSatisfy { $0.count == 1 } == true)
        #expect(component.loads.count == 4)
    }

    @Test("reset() drops every key's instance, and the next call builds anew")
    func resetDropsKeys() async throws {
        let component = ProfileComponent()
        let before = try await component.profiles.profile(id: "a")
        component.reset()
        let after = try await component.profiles.profile(id: "a")
        #expect(after !== before)
        #expect(try await component.profiles.profile(id: "a") === after)
        #expect(component.loads.count == 2)
    }

    @Test("configure: completes each key's instance once, before any other task gets it")
    func configureRunsOncePerKey() async throws {
        let component = ProfileComponent()
        let profiles = await withTaskGroup(of: Profile.self) { group in
            for _ in 0..<50 { group.addTask { await component.profiles.configuredProfile(id: "c") } }
            return await group.reduce(into: [Profile]()) { $0.append($1) }
        }
        #expect(profiles.allSatisfy { $0.greeting == "hello, c" }, "no task sees it before configure: ran")
        #expect(Set(profiles.map(ObjectIdentifier.init)).count == 1)
        #expect(component.configured.count == 1)
    }

    @Test("close: runs for each key's instance at shutdown, the newest first")
    func closeEachKeyNewestFirst() async throws {
        let component = ProfileComponent()
        _ = await component.profiles.closingProfile(id: "first")
        _ = await component.profiles.closingProfile(id: "second")
        try await component.shutdown()
        #expect(component.closed.withLock { $0 } == ["second", "first"])
    }

    @Test("a failed build caches nothing for its key, and the next call builds again")
    func failedBuildCachesNothing() async throws {
        let component = ProfileComponent()
        await #expect(throws: ProfileError.self) { try await component.profiles.profile(id: "fail") }
        component.failing.withLock { $0 = false }
        let profile = try await component.profiles.profile(id: "fail")
        #expect(try await component.profiles.profile(id: "fail") === profile)
        #expect(component.loads.count == 2)
    }

    @Test("the form whose factory needs no component caches per key as well")
    func formWithoutComponent() async {
        let component = ProfileComponent()
        let first = await component.profiles.avatar(size: 64)
        #expect(await component.profiles.avatar(size: 64) === first)
        #expect(await component.profiles.avatar(size: 32) !== first)
    }

    @Test("an override receives each key, and serves every key")
    func overrideSeesTheKey() async throws {
        let component = await ProfileComponent().overriding {
            try await $0.profiles.profile(id: "setup")
        } with: { _, id in
            Profile(id: "fake " + id)
        }
        let profile = try await component.profiles.profile(id: "x")
        #expect(profile.id == "fake x")
        #expect(try await component.profiles.profile(id: "x") === profile)
        #expect(component.loads.count == 0, "the provider's own factory never runs")
    }

    @Test("insight shows an async single(key:) with its strategy")
    func insightShowsTheStrategy() async throws {
        let component = ProfileComponent()
        _ = try await component.profiles.profile(id: "a")
        let node = component.node("ProfileModule.profile(id:)")
        #expect(node?.strategy == .keyedSingle.async)
        #expect(node?.strategy.description == "async single(key:)")
    }
}

enum ProfileError: Error { case unavailable }

final class Profile: @unchecked Sendable {
    let id: String
    /// Written once, by `configure:`, before any other task can get the profile.
    var greeting = ""

    init(id: String) {
        self.id = id
    }
}

final class ProfileComponent: Component, @unchecked Sendable {
    let loads = Counter()
    let configured = Counter()
    let closed = LockedBox<[String]>([])
    let failing = LockedBox(true)

    var profiles: ProfileModule { module() }
}

final class ProfileModule: Module<ProfileComponent> {
    func profile(id: String) async throws -> Profile {
        try await single(key: id) { c in
            await Task.yield()
            c.loads.increment()
            if id == "fail", c.failing.withLock({ $0 }) { throw ProfileError.unavailable }
            return Profile(id: id)
        }
    }

    func slowProfile(id: String) async -> Profile {
        await single(key: id) { c in
            c.loads.increment()
            for _ in 0..<20 { await Task.yield() }
            return Profile(id: id)
        }
    }

    func configuredProfile(id: String) async -> Profile {
        await single(key: id) { _ in
            await Task.yield()
            return Profile(id: id)
        } configure: { profile, c in
            c.configured.increment()
            await Task.yield()
            profile.greeting = "hello, \(profile.id)"
        }
    }

    func closingProfile(id: String) async -> Profile {
        let closed = component.closed
        return await single(key: id) { _ in
            await Task.yield()
            return Profile(id: id)
        } close: { profile in
            closed.withLock { $0.append(profile.id) }
        }
    }

    func avatar(size: Int) async -> Profile {
        await single(key: size) {
            await Task.yield()
            return Profile(id: "avatar \(size)")
        }
    }
}
