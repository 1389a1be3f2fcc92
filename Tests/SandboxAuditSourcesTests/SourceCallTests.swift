import Foundation
import SandboxAuditSources
import XCTest

/// Functions and methods evaluated for the calls that pass them literal values, and properties
/// given their value by an assignment.
final class SourceCallTests: XCTestCase {
    func testSwiftHelperInAnotherFileNamedByItsCall() throws {
        let tree = try SourceTreeFixture([
            "Core/Folders.swift": """
            import Foundation
            enum Folders {
                static let data: URL = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
                static func subfolder(named name: String) -> URL {
                    ensure(named: name, in: data)
                }
                static func ensure(named name: String, in folder: URL) -> URL {
                    let url = folder.appendingPathComponent(name, isDirectory: true)
                    return url
                }
            }
            """,
            "App/Store.swift": """
            import Foundation
            final class Store {
                private let folder: String
                init() {
                    self.folder = Folders.subfolder(named: "Records").path
                    let inbox = (folder as NSString).appendingPathComponent("Inbox")
                    print(inbox)
                }
            }
            """,
        ])
        let index = try tree.index()
        XCTAssertEqual(index.best("Documents/Records", isDirectory: true), "App/Store.swift:5", index.patterns)
        XCTAssertEqual(index.best("Documents/Records/Inbox", isDirectory: true), "App/Store.swift:6")
    }

    func testLocalDeclaredThenAssigned() throws {
        let index = try indexOne(
            """
            import Foundation
            func setUp(kind: Int) {
                var library: String
                library = NSSearchPathForDirectoriesInDomains(.libraryDirectory, .userDomainMask, true)[0]
                let folder: String
                switch kind {
                case 0: folder = library + "/Store/Internal"
                default: folder = library + "/Other/Internal"
                }
                print(folder)
            }
            """)
        XCTAssertEqual(index.best("Library/Store/Internal"), "App.swift:7", index.patterns)
        XCTAssertEqual(index.best("Library/Other/Internal"), "App.swift:8")
    }

    func testObjectiveCMethodNamedByItsCall() throws {
        let tree = try SourceTreeFixture([
            "Paths.m": """
            @implementation Paths
            + (NSString *)archivePath:(NSString *)folder file:(NSString *)file {
                NSString *docs = NSSearchPathForDirectoriesInDomains(NSDocumentDirectory, NSUserDomainMask, YES)[0];
                return [[docs stringByAppendingPathComponent:folder] stringByAppendingPathComponent:file];
            }
            @end
            """,
            "Saver.m": """
            @implementation Saver
            - (void)save {
                NSString *path = [Paths archivePath:@"Saved" file:@"list.dat"];
                [data writeToFile:path atomically:YES];
                NSString *name = [NSLocalizedString(@"RECENT", nil) stringByAppendingPathExtension:@"m3u"];
                NSURL *url = [[NSURL fileURLWithPath:NSTemporaryDirectory()] URLByAppendingPathComponent:name];
            }
            @end
            """,
        ])
        let index = try tree.index()
        XCTAssertEqual(index.best("Documents/Saved/list.dat"), "Saver.m:3", index.patterns)
        XCTAssertEqual(index.best("tmp/Recent.m3u"), "Saver.m:6", "a name of its own with an extension")
    }

    func testObjectiveCArrayOfOneThroughALoopAndMacrosOfAnElseBranch() throws {
        let tree = try SourceTreeFixture([
            "Constants.h": """
            #ifndef Constants_h
            #ifdef IS_BETA
                #define kGroup @"group.com.example.beta"
            #elif defined(IS_LITE)
                #define kGroup @"group.com.example.lite"
            #else
                #define kGroup @"group.com.example.shared"
            #endif
            #endif
            """,
            // A Swift mirror of the macro, which the index cannot read: the macro's value holds.
            "Mirror.swift": "let kGroup = Tools.definedValue(.kGroup)\n",
            "Tools.m": """
            @implementation Tools
            +(NSURL*) containerURLFor:(NSArray*) components
            {
                static NSURL* containerUrl;
                static dispatch_once_t onceToken;
                dispatch_once(&onceToken, ^{
                    containerUrl = [[NSFileManager defaultManager]
                        containerURLForSecurityApplicationGroupIdentifier:kGroup];
                });
                NSURL* retval = containerUrl;
                for(NSString* component in components)
                    retval = [retval URLByAppendingPathComponent:component];
                return retval;
            }
            @end
            """,
            "Store.m": """
            @implementation Store
            +(void) initialize
            {
                NSString* path = [[Tools containerURLFor:@[@"store.sqlite"]] path];
                NSString* root = [[Tools containerURLFor:@[]] path];
                NSString* images = [root stringByAppendingPathComponent:@"images"];
            }
            @end
            """,
        ])
        let index = try tree.index()
        XCTAssertEqual(
            index.best("store.sqlite", .appGroup("group.com.example.shared")), "Store.m:4", index.patterns)
        XCTAssertNil(index.best("store.sqlite", .appGroup("group.com.example.beta")))
        XCTAssertEqual(index.best("images", .appGroup("group.com.example.shared"), isDirectory: true), "Store.m:6")
    }

    func testCallsInCallsAreBounded() throws {
        // Each function calls the next with its parameter: past the depth bound nothing is built,
        // and a function calling itself ends.
        var text = "import Foundation\n"
        for i in 0..<10 {
            text += "func f\(i)(_ s: String) -> URL { f\(i + 1)(s) }\n"
        }
        text += """
            func f10(_ s: String) -> URL { URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(s) }
            func loop(_ s: String) -> URL { loop(s + "x") }
            let deep = f0("deep.txt")
            let near = f8("near.txt")
            let spin = loop("a")
            """
        let index = try indexOne(text)
        XCTAssertNil(index.best("tmp/deep.txt"), index.patterns)
        XCTAssertEqual(index.best("tmp/near.txt"), "App.swift:15", index.patterns)
    }
}
