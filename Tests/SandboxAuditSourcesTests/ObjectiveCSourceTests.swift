import Foundation
import SandboxAuditSources
import XCTest

/// Objective-C read as tokens: the folders, joins, constants and locals the index resolves.
final class ObjectiveCSourceTests: XCTestCase {
    func testSearchPathsJoinsAndLocals() throws {
        let index = try indexOne(
            """
            #import <Foundation/Foundation.h>
            // [docs stringByAppendingPathComponent:@"Commented.db"] is not code
            @implementation Cache
            - (void)save {
                NSString *docs = NSSearchPathForDirectoriesInDomains(NSDocumentDirectory, NSUserDomainMask, YES)[0];
                NSString *dir = [docs stringByAppendingPathComponent:@"Cache"];
                NSString *file = [dir stringByAppendingPathComponent:@"a.db"];
                [data writeToFile:[dir stringByAppendingPathComponent:@"b.db"] atomically:YES];
                NSString *caches = [NSSearchPathForDirectoriesInDomains(NSCachesDirectory, NSUserDomainMask, YES)
                    firstObject];
                NSString *log = [caches stringByAppendingString:@"/app.log"];
                NSString *tmp = [NSTemporaryDirectory() stringByAppendingPathComponent:@"t.tmp"];
                NSString *home = [NSHomeDirectory() stringByAppendingPathComponent:@"Library/Sounds"];
                NSString *support = NSSearchPathForDirectoriesInDomains(NSApplicationSupportDirectory,
                    NSUserDomainMask, YES).firstObject;
                NSString *formatted = [support stringByAppendingPathComponent:
                    [NSString stringWithFormat:@"index-%d.bin", 3]];
            }
            @end
            """, name: "Legacy/Cache.m")
        XCTAssertNil(index.best("Documents/Commented.db"))
        XCTAssertEqual(index.best("Documents/Cache", isDirectory: true), "Legacy/Cache.m:6", index.patterns)
        XCTAssertEqual(index.best("Documents/Cache/a.db"), "Legacy/Cache.m:7")
        XCTAssertEqual(index.best("Documents/Cache/b.db"), "Legacy/Cache.m:8")
        XCTAssertEqual(index.best("Library/Caches/app.log"), "Legacy/Cache.m:11")
        XCTAssertEqual(index.best("tmp/t.tmp"), "Legacy/Cache.m:12")
        XCTAssertEqual(index.best("Library/Sounds", isDirectory: true), "Legacy/Cache.m:13")
        XCTAssertEqual(index.best("Library/Application Support/index-7.bin"), "Legacy/Cache.m:16")
        XCTAssertEqual(index.filesIndexed, 1)
    }

    func testURLsAppGroupsAndConstantsAcrossFiles() throws {
        let tree = try SourceTreeFixture([
            "Constants.h": """
            #define kGroupID @"group.com.example.legacy"
            extern NSString *const kFolderName;
            """,
            "Constants.m": """
            NSString *const kFolderName = @"Attachments";
            static NSString * const kIndexName = @"index.plist";
            """,
            "Store.m": """
            @implementation Store
            - (NSURL *)folder {
                NSFileManager *fm = [NSFileManager defaultManager];
                NSURL *group = [fm containerURLForSecurityApplicationGroupIdentifier:kGroupID];
                return [group URLByAppendingPathComponent:kFolderName isDirectory:YES];
            }
            - (void)write {
                NSURL *docs = [[NSFileManager defaultManager] URLsForDirectory:NSDocumentDirectory
                                                                    inDomains:NSUserDomainMask].firstObject;
                NSURL *file = [docs URLByAppendingPathComponent:kIndexName];
                NSURL *inside = [[self folder] URLByAppendingPathComponent:@"photo.jpg"];
                NSURL *lib = [NSFileManager.defaultManager URLsForDirectory:NSLibraryDirectory
                                                                 inDomains:NSUserDomainMask][0];
                NSURL *state = [lib URLByAppendingPathComponent:@"State" isDirectory:YES];
            }
            @end
            """,
        ])
        let index = try tree.index()
        let group = SourceBase.appGroup("group.com.example.legacy")
        XCTAssertEqual(index.best("Attachments", group, isDirectory: true), "Store.m:5", index.patterns)
        XCTAssertEqual(index.best("Attachments/photo.jpg", group), "Store.m:11")
        XCTAssertEqual(index.best("Documents/index.plist"), "Store.m:10")
        XCTAssertEqual(index.best("Library/State", isDirectory: true), "Store.m:14")
        XCTAssertEqual(index.filesIndexed, 3)
    }

    func testSuiteDefaultsAndUserDefaultsStandard() throws {
        let index = try indexOne(
            """
            NSUserDefaults *shared = [[NSUserDefaults alloc] initWithSuiteName:@"group.com.example.legacy"];
            NSUserDefaults *standard = [NSUserDefaults standardUserDefaults];
            """, name: "Defaults.m")
        XCTAssertEqual(
            index.best("Library/Preferences/group.com.example.legacy.plist", .appGroup("group.com.example.legacy")),
            "Defaults.m:1", index.patterns)
        XCTAssertNil(index.best("Library/Preferences/com.example.legacy.plist"))
    }
}
