import Dirk
import DirkTestSupport
import Foundation
import Testing

@Suite("A module's provider slots")
struct ProviderSlotsTests {
    /// A provider's slot, and an override's factory: only their identities matter here.
    final class Slot: @unchecked Sendable {}

    private static func key(line: UInt) -> ProviderKey {
        ProviderKey(file: #fileID, line: line, column: 1, function: "provider()", type: Slot.self)
    }

    private static let site = ProviderSite(file: #fileID, line: 1, column: 1, function: "provider()")

    /// Makes the slot of the provider at `key`, unless it is there, and says whether it made it.
    private static func use(_ slots: ProviderSlots, _ key: ProviderKey) -> Bool {
        var isNew = false
        slots.withSlot(
            for: key, strategy: .single, site: site, as: Slot.self,
            make: {
                isNew = true
                return Slot()
            }, { _ in })
        return isNew
    }

    @Test("an override is set only for a provider that has no slot yet, and a slot made later finds it")
    func overrideOnlyBeforeFirstUse() {
        let slots = ProviderSlots.make(moduleType: Slot.self, componentType: Slot.self)
        let (used, unused) = (Self.key(line: 1), Self.key(line: 2))
        let factory = Slot()
        #expect(Self.use(slots, used))
        #expect(
            !slots.setOverride(factory, forUnusedProviderAt: used, strategy: .single),
            "a used provider is not overridden")
        #expect(slots.override(for: used, strategy: .single) == nil)
        #expect(slots.setOverride(factory, forUnusedProviderAt: unused, strategy: .single))
        #expect(slots.override(for: unused, strategy: .single) === factory)
        #expect(Self.use(slots, unused), "the override made no slot")
        #expect(slots.override(for: unused, strategy: .single) === factory)
    }

    @Test("two providers of one key and two strategies, first called at once: the clash is reported")
    func clashFoundUnderTheLock() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            // The first call makes its slot while holding the lock; the second, which missed the
            // lock-free lookup, finds it under the lock, with the other strategy. Its message reads
            // the slots' state, which takes the lock: after the lock, or the thread would take a
            // lock it holds (a hang in a release build).
            armExitTestWatchdog()
            let shared = Unchecked(
                (ProviderSlots.make(moduleType: Slot.self, componentType: Slot.self), Self.key(line: 4)))
            let (making, proceed) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
            onThreads(2) { index in
                let (slots, key) = shared.value
                if index == 0 {
                    slots.withSlot(
                        for: key, strategy: .single, site: Self.site, as: Slot.self,
                        make: {
                            making.signal()
                            proceed.wait()
                            return Slot()
                        }, { _ in })
                } else {
                    making.wait()
                    // Lets the other thread go once this one waits for the lock, very likely.
                    Thread.detachNewThread {
                        usleep(50_000)
                        proceed.signal()
                    }
                    slots.withSlot(
                        for: key, strategy: .weak, site: Self.site, as: Slot.self, make: { Slot() }, { _ in })
                }
            }
        }
        #expect(standardError(of: result).contains("Dirk: two providers named `Slot.provider()`"))
    }

    @Test("a provider overridden already is not overridden again, unless the override replaces")
    func secondOverride() {
        let slots = ProviderSlots.make(moduleType: Slot.self, componentType: Slot.self)
        let key = Self.key(line: 3)
        let (first, second, third) = (Slot(), Slot(), Slot())
        #expect(slots.setOverride(first, forUnusedProviderAt: key, strategy: .single))
        #expect(
            !slots.setOverride(second, forUnusedProviderAt: key, strategy: .single),
            "of two overrides at once, one fails")
        #expect(slots.override(for: key, strategy: .single) === first)
        #expect(
            slots.setOverride(third, forUnusedProviderAt: key, strategy: .single, replaces: true),
            "a transient's")
        #expect(slots.override(for: key, strategy: .single) === third)
    }

    @Test("a provider's first use and an override racing it: either the override fails or the use sees it")
    func overrideRacingFirstUse() {
        // The override is set in the critical section that finds the provider unused, so a slot
        // made on another thread is made either before it (the override fails) or after it (the
        // maker finds the override when it builds). Checked and set apart, an override could
        // succeed after the slot was made without it.
        // Both orders must be seen, so that the rounds show the two calls overlapping rather than
        // one thread always finishing first; the threads start together at a barrier.
        let seen = Locked((overrideFirst: false, useFirst: false))
        let checks = OffThreadChecks()
        withWatchdog {
            for round in 0..<20_000 {
                let shared = Unchecked(
                    (
                        ProviderSlots.make(moduleType: Slot.self, componentType: Slot.self),
                        Self.key(line: UInt(round) + 10)
                    ))
                let factory = Slot()
                let outcome = Locked((isOverridden: false, madeWithout: false))
                let arrived = Counter()
                onThreads(2) { index in
                    arrived.increment()
                    while arrived.count < 2 {}
                    let (slots, key) = shared.value
                    if index == 0 {
                        let isOverridden = slots.setOverride(
                            factory, forUnusedProviderAt: key, strategy: .single)
                        outcome.withLock { $0.isOverridden = isOverridden }
                    } else if Self.use(slots, key),
                        slots.override(for: key, strategy: .single) == nil
                    {
                        outcome.withLock { $0.madeWithout = true }
                    }
                }
                let (isOverridden, madeWithout) = outcome.withLock { $0 }
                checks.check(
                    !(isOverridden && madeWithout),
                    "round \(round): overridden after a use that did not see it")
                if isOverridden && madeWithout { return }
                let both = seen.withLock {
                    if isOverridden { $0.overrideFirst = true } else { $0.useFirst = true }
                    return $0.overrideFirst && $0.useFirst
                }
                if both && round >= 2_000 { return }
            }
        }
        checks.expectNone()
        #expect(
            seen.withLock { $0.overrideFirst && $0.useFirst }, "the two calls never raced: one order only")
    }
}
