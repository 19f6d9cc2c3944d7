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

    @Test("modifyFirst(where:) changes only the first match, wherever it lies")
    func modification() {
        var list = InlineList<Int>()
        for number in [1, 2, 3, 2, 5] { list.append(number) }
        #expect(list.modifyFirst(where: { $0 == 2 }) { $0 = 20 })
        #expect(list.modifyFirst(where: { $0 == 5 }) { $0 = 50 })
        #expect(!list.modifyFirst(where: { $0 == 7 }) { $0 = 70 })
        #expect(list.elements == [1, 20, 3, 2, 50])
        #expect(list.first(where: { $0 > 10 }) == 20)
    }
}
