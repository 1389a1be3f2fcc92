#import <Foundation/Foundation.h>

static NSString *const kImageCacheFolder = @"ImageCache";

// Avatars, from before the Swift rewrite.
@implementation LegacyImageCache

- (NSString *)cacheFolder {
    NSString *caches = NSSearchPathForDirectoriesInDomains(NSCachesDirectory, NSUserDomainMask, YES).firstObject;
    return [caches stringByAppendingPathComponent:kImageCacheFolder];
}

- (NSString *)pathForAvatarOfUser:(NSInteger)userID {
    NSString *name = [NSString stringWithFormat:@"avatar-%ld.jpg", (long)userID];
    return [[self cacheFolder] stringByAppendingPathComponent:name];
}

@end
