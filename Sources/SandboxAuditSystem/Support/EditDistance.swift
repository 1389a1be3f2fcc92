/// The longest word compared by `editDistance`.
package let editDistanceLimit = 256

/// Levenshtein distance by character, ignoring case: how far a word the user typed is from one
/// the tool knows (a subcommand, a rule id, a policy key), for "did you mean …?".
/// A word of more than `editDistanceLimit` bytes is no typo of a name the tool knows: its
/// distance is its length, found without the quadratic table (a 100,000-character rule id took
/// 18 s to be told no rule is near it).
package func editDistance(_ a: String, _ b: String) -> Int {
    guard a.utf8.count <= editDistanceLimit, b.utf8.count <= editDistanceLimit else { return max(a.count, b.count) }
    let a = Array(a.lowercased())
    let b = Array(b.lowercased())
    var row = Array(0...b.count)
    for (i, ca) in a.enumerated() {
        var previous = row[0]
        row[0] = i + 1
        for (j, cb) in b.enumerated() {
            let current = row[j + 1]
            row[j + 1] = min(row[j] + 1, row[j + 1] + 1, previous + (ca == cb ? 0 : 1))
            previous = current
        }
    }
    return row[b.count]
}
