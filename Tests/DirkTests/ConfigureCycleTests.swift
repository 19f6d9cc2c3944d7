import Dirk
import DirkTestSupport
import Testing

/// The three-way cycle of Radar COVID's use cases, wired by Swinject's `initCompleted`: resetting
/// the data needs the setup, which needs the exposition check, which needs the reset. Only the reset
/// takes its dependency after it is built, in a `configure:` closure.
@Suite("A configure: cycle resolves from whichever of its providers is asked first")
struct ConfigureCycleTests {
    enum End: CaseIterable, Sendable {
        case setup, check, reset
    }

    @Test("each end gets one instance of each, wired to the others", arguments: End.allCases)
    func resolvesFromEachEnd(_ end: End) {
        let component = RadarComponent()
        switch end {
        case .setup: _ = component.useCases.setup()
        case .check: _ = component.useCases.expositionCheck()
        case .reset: _ = component.useCases.resetData()
        }
        let (setup, check, reset) = (
            component.useCases.setup(), component.useCases.expositionCheck(), component.useCases.resetData()
        )
        #expect(setup.check === check)
        #expect(check.reset === reset)
        #expect(reset.setup === setup)
        #expect(component.builds.count == 3, "each built once")
    }

    @Test("the outermost call returns an instance whose configure: has run", arguments: End.allCases)
    func configuredBeforeTheOutermostCallReturns(_ end: End) {
        let component = RadarComponent()
        let reset: ResetDataUseCase =
            switch end {
            case .setup: component.useCases.setup().check.reset
            case .check: component.useCases.expositionCheck().reset
            case .reset: component.useCases.resetData()
            }
        #expect(reset.setup != nil)
    }

    @Test("from other threads at once, every end gets the same wired instances")
    func concurrentEnds() {
        for _ in 0..<50 {
            let component = RadarComponent()
            let resets = LockedBox<[ObjectIdentifier]>([])
            onThreads(3) { index in
                let reset =
                    switch index {
                    case 0: component.useCases.setup().check.reset
                    case 1: component.useCases.expositionCheck().reset
                    default: component.useCases.resetData()
                    }
                #expect(reset.setup === component.useCases.setup())
                resets.withLock { $0.append(ObjectIdentifier(reset)) }
            }
            #expect(Set(resets.withLock { $0 }).count == 1)
            #expect(component.builds.count == 3)
        }
    }

    @Test("a configure: that can throw runs at once, so its error reaches its own provider's caller")
    func throwingConfigureRunsAtOnce() throws {
        let component = RadarComponent()
        #expect(throws: ReportFailure.self) { try component.useCases.reportWithFailingCheck() }
        #expect(component.reportConfigured.count == 1, "its configure: ran inside the outer factory")
    }

    @Test(
        "a configure: waiting for a factory that throws runs once it has thrown; what it completes stays cached"
    )
    func waitingConfigureOfAFailedFactory() throws {
        let component = RadarComponent()
        #expect(throws: ReportFailure.self) { try component.useCases.failingSetup() }
        #expect(
            component.builds.count == 3,
            "the check and the reset were built; the reset's configure: built the setup")
        let reset = component.useCases.resetData()
        #expect(reset.setup === component.useCases.setup())
        #expect(component.builds.count == 3, "nothing was built again")
    }
}

final class SetupUseCase: Sendable {
    let check: ExpositionCheckUseCase

    init(check: ExpositionCheckUseCase) {
        self.check = check
    }
}

final class ExpositionCheckUseCase: Sendable {
    let reset: ResetDataUseCase

    init(reset: ResetDataUseCase) {
        self.reset = reset
    }
}

/// Holds its setup weakly: the setup holds it, through the exposition check, and the component
/// keeps all three.
final class ResetDataUseCase: Sendable {
    private struct WeakSetup {
        weak var setup: SetupUseCase?
    }

    private let setupBox = LockedBox(WeakSetup())
    var setup: SetupUseCase? {
        get { setupBox.withLock { $0.setup } }
        set { setupBox.withLock { $0.setup = newValue } }
    }
}

struct ReportFailure: Error {}

final class RadarComponent: Component, @unchecked Sendable {
    let builds = Counter()
    let reportConfigured = Counter()
    var useCases: RadarUseCaseModule { module() }
}

final class RadarUseCaseModule: Module<RadarComponent> {
    func setup() -> SetupUseCase {
        single { c in
            c.builds.increment()
            return SetupUseCase(check: c.useCases.expositionCheck())
        }
    }

    func expositionCheck() -> ExpositionCheckUseCase {
        single { c in
            c.builds.increment()
            return ExpositionCheckUseCase(reset: c.useCases.resetData())
        }
    }

    func resetData() -> ResetDataUseCase {
        single { c in
            c.builds.increment()
            return ResetDataUseCase()
        } configure: { reset, c in
            reset.setup = c.useCases.setup()
        }
    }

    /// A `single` whose factory throws after the reset was built inside it.
    func failingSetup() throws(ReportFailure) -> SetupUseCase {
        try single { c throws(ReportFailure) in
            _ = c.useCases.expositionCheck()
            throw ReportFailure()
        }
    }

    /// A provider whose `configure:` can throw, asked for inside another's factory.
    func failingReport() throws(ReportFailure) -> Counter {
        try single { () throws(ReportFailure) in
            Counter()
        } configure: { (_, c) throws(ReportFailure) in
            c.reportConfigured.increment()
            throw ReportFailure()
        }
    }

    func reportWithFailingCheck() throws(ReportFailure) -> Counter {
        try single { c throws(ReportFailure) in try c.useCases.failingReport() }
    }
}

@Suite("configure: on every caching strategy")
struct KeyedConfigureTests {
    @Test("a single(key:)'s configure: completes each key's instance, and a cycle through it resolves")
    func keyedConfigure() {
        let component = RadarComponent()
        let first = component.useCases.note(1)
        #expect(first.setup === component.useCases.setup())
        #expect(component.useCases.note(1) === first)
        #expect(component.useCases.note(2) !== first)
    }
}

extension RadarUseCaseModule {
    /// A keyed instance that takes the setup late, through `configure:`.
    func note(_ id: Int) -> ResetDataUseCase {
        single(key: id) {
            ResetDataUseCase()
        } configure: { note, c in
            note.setup = c.useCases.setup()
        }
    }
}
