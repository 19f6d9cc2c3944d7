import Dirk
import Testing

@Suite("The list that keeps its first elements inline")
struct InlineListTests {
    @Test("elements come back in the order they were appended, however many there are", arguments: 0...6)
    func order(count: Int) {
        var list = InlineList<Int>()
        for number in 0..<count { list.append(number) }
        #expect(list.elements == Array(0..<count))
        #expect(list.isEmpty == (count == 0))
    }

    @Test("removeAll(where:) keeps the order of what stays, inline or not", arguments: 0...6)
    func removal(count: Int) {
        var list = InlineList<Int>()
        for number in 0..<count { list.append(number) }
        list.removeAll { $0 % 2 == 0 }
        #expect(list.elements == Array(0..<count).filter { $0 % 2 == 1 })
        list.append(100)
        #expect(list.elements.last == 100)
    }

    @Test(
        "removeElements(from:) hands back the elements from a position on, in order, and keeps the rest",
        arguments: 0...5, 0...6)
    func removalFromAPosition(count: Int, index: Int) {
        var list = InlineList<Int>()
        for number in 0..<count { list.append(number) }
        #expect(list.count == count)
        let removed = list.removeElements(from: index)
        #expect(removed == Array(min(index, count)..<count))
        #expect(list.elements == Array(0..<min(index, count)))
        #expect(list.count == min(index, count))
        list.append(100)
        #expect(
            list.elements == Array(0..<min(index, count)) + [100], "appending after a removal keeps the order"
        )
    }

    @Test("modifyFirst(where:) changes only the first match, wherever it lies")
    func modification() {
        var list = InlineList<Int>()
        for number in [1, 2, 3, 2, 5] { list.append(number) }
        let changedTwo = list.modifyFirst(where: { $0 == 2 }, { $0 = 20 })
        #expect(changedTwo)
        let changedFive = list.modifyFirst(where: { $0 == 5 }, { $0 = 50 })
        #expect(changedFive)
        let changedSeven = list.modifyFirst(where: { $0 == 7 }, { $0 = 70 })
        #expect(!changedSeven)
        #expect(list.elements == [1, 20, 3, 2, 50])
        #expect(list.first(where: { $0 > 10 }) == 20)
    }

    @Test(
        "removeAll(where:) keeps the other elements in order, whichever places the removed ones held",
        arguments: 0..<6)
    func removalKeepsOrder(count: Int) {
        for removed in 0..<(1 << count) {
            var list = InlineList<Int>()
            for number in 0..<count { list.append(number) }
            list.removeAll { removed & (1 << $0) != 0 }
            let kept = (0..<count).filter { removed & (1 << $0) == 0 }
            #expect(list.elements == kept)
            #expect(list.isEmpty == kept.isEmpty)
            list.append(100)
            #expect(list.elements == kept + [100])
        }
    }

    @Test("removeFirst(where:) takes out the first match only, and nil when none matches", arguments: 0..<6)
    func removingTheFirstMatch(count: Int) {
        for target in 0...count {
            var list = InlineList<Int>()
            for number in 0..<count { list.append(number % 3) }
            let expected = (0..<count).map { $0 % 3 }
            let index = expected.firstIndex(of: target)
            let removed = list.removeFirst { $0 == target }
            #expect(removed == index.map { expected[$0] })
            var remaining = expected
            if let index { remaining.remove(at: index) }
            #expect(list.elements == remaining)
        }
    }

    @Test("removeAllElements() hands over every element and leaves the list empty")
    func handingOver() {
        var list = InlineList<Int>()
        for number in 0..<5 { list.append(number) }
        let taken = list.removeAllElements()
        #expect(taken.elements == [0, 1, 2, 3, 4])
        #expect(list.isEmpty && list.elements.isEmpty)
    }

    @Test(
        "removeUniquelyReferenced() releases what only the list refers to and keeps the rest in order",
        arguments: 0..<6)
    func droppingUnreferencedElements(count: Int) {
        final class Element {
            let number: Int
            init(_ number: Int) { self.number = number }
        }
        for heldMask in 0..<(1 << count) {
            var list = InlineList<Element>()
            var held: [Element] = []
            weak var released: Element?
            for number in 0..<count {
                let element = Element(number)
                list.append(element)
                if heldMask & (1 << number) != 0 { held.append(element) } else { released = element }
            }
            list.removeUniquelyReferenced()
            #expect(list.elements.map(\.number) == held.map(\.number))
            #expect(released == nil)
            #expect(list.isEmpty == held.isEmpty)
        }
    }
}
