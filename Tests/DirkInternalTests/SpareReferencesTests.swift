import Dirk
import DirkTestSupport
import Dispatch
import Foundation
import Testing

/// The references a `single`'s cell makes in bulk and hands out one at a time, without its lock
/// (`SpareReferences`): every reference handed out is its reader's, and every spare goes back to
/// the object when the cell gives its value up, whichever way it does.
@Suite("Spare references of a cell")
struct SpareReferencesTests {
    /// More reads than two batches of spares, so that a batch is made three times.
    private static let reads = Int(SpareReferences.batch) * 2 + 3

    /// A ready cell of a new `Item`, and a weak reference to the item.
    private func readyCell(_ number: Int = 1) -> (cell: StrongObjectCell, item: WeakObject) {
        let cell = StrongObjectCell.make()
        let item = cell.resolve(frame: makeFrame()) { Item(number) }
        return (cell, WeakObject(item))
    }

    /// `reads` references taken from `cell`, each checked to be `expected`.
    private func read(_ cell: StrongObjectCell, expecting expected: WeakObject) -> [AnyObject] {
        let readers = (0..<Self.reads).map { _ in cell.takeReadyReference()!.takeRetainedValue() }
        #expect(readers.allSatisfy { $0 === expected.object })
        return readers
    }

    @Test("reset() gives the spares back: the value goes when its readers let go, and not before")
    func resetGivesSparesBack() {
        let (cell, item) = readyCell()
        var readers = read(cell, expecting: item)
        #expect(cell.reset() != nil)
        #expect(item.object != nil, "the readers' references are their own")
        #expect(cell.takeReadyReference() == nil, "a reset cell has nothing to hand out")
        readers.removeLast(Self.reads - 1)
        #expect(item.object != nil)
        readers.removeAll()
        #expect(item.object == nil, "a spare left behind would keep the value alive")
    }

    @Test("the word counts the spares a refill made, less the reads since, and a reset empties it")
    func wordCountsSpares() {
        let (cell, item) = readyCell()
        let batch = Int(SpareReferences.batch)
        #expect(cell.spareCount == 0, "a cell makes spares on its first read, not before")
        var readers = [cell.takeReadyReference()!.takeRetainedValue()]
        #expect(cell.spareCount == batch - 1)
        for _ in 1..<batch { readers.append(cell.takeReadyReference()!.takeRetainedValue()) }
        #expect(cell.spareCount == 0)
        readers.append(cell.takeReadyReference()!.takeRetainedValue())
        #expect(cell.spareCount == batch - 1, "a read of an empty word refills it")
        #expect(readers.allSatisfy { $0 === item.object })
        _ = cell.reset()
        #expect(cell.spareCount == 0)
        readers.removeAll()
        #expect(item.object == nil)
    }

    @Test("a read takes a spare while another thread holds the cell's lock")
    func readTakesNoLock() {
        let (cell, item) = readyCell()
        _ = cell.takeReadyReference()!.takeRetainedValue()
        let shared = Unchecked(cell)
        let read = DispatchSemaphore(value: 0)
        let taken = DirkTestSupport.Locked<AnyObject?>(nil)
        let finished: Bool = cell.withMachine { _ in
            // The lock is held until this closure returns: only a read that takes no lock ends.
            Thread.detachNewThread {
                let value = shared.value.takeReadyReference()!.takeRetainedValue()
                taken.withLock { $0 = value }
                read.signal()
            }
            return read.wait(timeout: .now() + .seconds(defaultWatchdogSeconds)) == .success
        }
        #expect(finished, "the read waited for the lock")
        // A read that waited for the lock ends now that it is free; one that never ends fails here.
        if !finished {
            #expect(
                read.wait(timeout: .now() + .seconds(defaultWatchdogSeconds)) == .success,
                "the read never ended")
        }
        #expect(taken.withLock { $0 } === item.object)
    }

    @Test(
        "a read of a word whose count is zero takes nothing and leaves it as it is, whatever its address's other bits",
        arguments: [
            UInt64(0x0000_7FFF_FFFF_FFF0), UInt64(0xB400_0000_1234_5670), UInt64(0x8000_0000_0000_0010),
            UInt64(0xFF00_0000_0000_0000),
        ])
    func emptyWordStaysEmpty(address: UInt64) {
        let address = UInt(truncatingIfNeeded: address) & ~UInt(15)
        let empty = SpareReferences.word(address: address, count: 0)
        let (taken, left) = SpareReferences.read(ofWordHolding: empty)
        #expect(taken == nil)
        #expect(left == empty, "a read that found no spare must not change the word")
    }

    @Test("a read takes one spare and keeps the address's other bits", arguments: [1, 2, 255])
    func readKeepsAddress(count: Int) {
        let count = min(count, Int(SpareReferences.batch) - 1)
        let address = UInt(truncatingIfNeeded: UInt64(0xB400_0000_1234_5670)) & ~UInt(15)
        let full = SpareReferences.word(address: address, count: count)
        let (taken, left) = SpareReferences.read(ofWordHolding: full)
        #expect(taken == full)
        #expect(left == SpareReferences.word(address: address, count: count - 1))
    }

    @Test("a cell released with spares left gives them back, and its value goes")
    func releasedCellGivesSparesBack() {
        var item: WeakObject?
        do {
            let (cell, made) = readyCell()
            item = made
            _ = read(cell, expecting: made)
        }
        #expect(item?.object == nil)
    }

    @Test("a retired cell gives its spares back")
    func retiredCellGivesSparesBack() {
        let (cell, item) = readyCell()
        _ = read(cell, expecting: item)
        let (isRetired, dropped) = cell.retireUnlessBuilding()
        #expect(isRetired && dropped != nil)
        withExtendedLifetime(cell) {
            _ = dropped
            #expect(item.object != nil, "the dropped storage keeps the value until it goes")
        }
        _ = consume dropped
        #expect(item.object == nil)
    }

    @Test("readers on several threads while another resets and rebuilds: every value goes in the end")
    func concurrentReadsAndResets() {
        let cell = Unchecked(StrongObjectCell.make())
        let made = DirkTestSupport.Locked<[WeakObject]>([])
        @Sendable func build() -> AnyObject {
            let item = Item()
            made.withLock { $0.append(WeakObject(item)) }
            return item
        }
        _ = cell.value.resolve(frame: makeFrame(), build: build)
        let checks = OffThreadChecks()
        withWatchdog {
            onThreads(4) { thread in
                for round in 0..<2_000 {
                    if thread == 0 {
                        if round % 3 == 0 { _ = cell.value.reset() }
                        _ = cell.value.resolve(frame: makeFrame(), build: build)
                    } else if let reference = cell.value.takeReadyReference() {
                        let value = reference.takeRetainedValue()
                        checks.check(value is Item, "a read took something else than the item")
                    }
                }
            }
        }
        checks.expectNone()
        _ = cell.value.reset()
        let values = made.withLock { $0 }
        #expect(values.count > 1, "the resets made the cell build again")
        #expect(values.allSatisfy { $0.object == nil })
    }
}

/// A weak reference to any object.
private struct WeakObject: @unchecked Sendable {
    weak var object: AnyObject?

    init(_ object: AnyObject) {
        self.object = object
    }
}
