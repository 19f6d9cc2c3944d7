import Foundation

/// The writes the server acknowledged: what its database must hold once it has stopped.
struct Ledger: Sendable {
    struct Entry: Hashable, Sendable {
        let user: String
        let title: String
    }

    /// Each todo the server acknowledged adding (201), with its title as last acknowledged (200 for
    /// a PATCH), by id.
    var created: [Int: Entry] = [:]
    /// The todos the server acknowledged deleting (204).
    var deleted: Set<Int> = []
}

/// A todo as the server sends it: exactly an id and a title.
struct Todo: Equatable, Sendable {
    let id: Int
    let title: String
}

extension Todo: Decodable {
    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }

        init(stringValue: String) {
            self.stringValue = stringValue
        }

        init?(intValue: Int) {
            nil
        }
    }

    /// Decodes a todo; one that holds more than an id and a title fails, so that comparing two
    /// todos compares all they hold.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let keys = Set(container.allKeys.map(\.stringValue))
        guard keys == ["id", "title"] else {
            throw CheckFailure("a todo holds \(keys.sorted()), not exactly an id and a title")
        }
        id = try container.decode(Int.self, forKey: Key(stringValue: "id"))
        title = try container.decode(String.self, forKey: Key(stringValue: "title"))
    }
}

/// A JSON error body, `{"error": {"kind": "…", "message": "…"}}`; only database errors name a kind.
struct ErrorBody: Decodable {
    struct Details: Decodable {
        let kind: String?
        let message: String
    }

    let error: Details
}

/// The JSON body of a request that adds or renames a todo.
func titleJSON(_ title: String) -> String {
    String(decoding: try! JSONEncoder().encode(["title": title]), as: UTF8.self)
}
