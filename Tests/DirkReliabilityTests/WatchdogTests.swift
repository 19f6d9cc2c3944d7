import DirkTestSupport
import Dispatch
import Testing

/// The watchdogs that bound the tests that could hang: each must end what it guards, or the
/// tests it guards could hang the run instead of failing.
@Suite("Watchdogs")
struct WatchdogTests {
    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("an exit test's watchdog ends a child that hangs, with success and a line that says why")
    func exitTestWatchdogEndsAHang() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            armExitTestWatchdog(seconds: 1)
            DispatchSemaphore(value: 0).wait()
        }
        let message = standardError(of: result)
        #expect(message.contains("watchdog: the misuse did not stop the program within 1 s"), "\(message)")
    }
    #endif

    @Test("the async watchdog returns what its body returns")
    func asyncWatchdogReturnsTheResult() async {
        let result = await withAsyncWatchdog { () async -> Int in
            await Task.yield()
            return 42
        }
        #expect(result == 42)
    }

    @Test("the async watchdog records an issue for a body that hangs, and cancels it instead of waiting")
    func asyncWatchdogRecordsAHang() async {
        let ended = Counter()
        var reports: [String] = []
        func report(_ message: String, at _: SourceLocation) { reports.append(message) }
        let result = await withAsyncWatchdog(seconds: 1, reportHang: report) {
            // An hour, unless cancelled.
            try? await Task.sleep(nanoseconds: 3_600_000_000_000)
            ended.increment()
            return true
        }
        #expect(reports == ["Deadlock: the async work did not finish within 1 s"])
        #expect(result == nil)
        // The cancelled body ends soon after; wait for it, with a generous bound.
        for _ in 0..<30_000 where ended.count == 0 {
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        #expect(ended.count == 1, "the body was not cancelled")
    }

    @Test(
        "a check that fails in a watchdog's body is reported on the test's own thread, credited to the test")
    func offThreadChecksReportOnTheTestsThread() {
        let checks = OffThreadChecks()
        withWatchdog {
            checks.check(true, "a check that holds")
            checks.check(false, "the check that fails")
        }
        let summary = checks.summary ?? ""
        #expect(summary.hasPrefix("1 checks failed"))
        #expect(summary.contains("the check that fails"))
        #expect(!summary.contains("a check that holds"))
    }
}
