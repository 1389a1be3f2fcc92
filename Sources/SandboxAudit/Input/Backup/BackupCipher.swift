/// Decrypts what an encrypted Finder or iTunes backup holds: its `Manifest.db` and its files'
/// bytes. The backup reader asks for one when `Manifest.plist` says `IsEncrypted`;
/// `BackupDecryption` is the one made from the backup's keybag and password.
///
/// The format, as the public readers implement it: iOSbackup
/// (https://github.com/avibrazil/iOSbackup), pymobiledevice3
/// (https://github.com/doronz88/pymobiledevice3), mvt (https://github.com/mvt-project/mvt).
protocol BackupCipher: Sendable {
    /// The plain bytes of the backup's encrypted `Manifest.db`.
    func manifestDatabase(_ encrypted: [UInt8]) throws -> [UInt8]
    /// The plain bytes of one file of the backup. `encryptionKey` is its `MBFile`'s
    /// `EncryptionKey` (a 4-byte little-endian protection class, then the wrapped key); `size`
    /// its `MBFile`'s `Size`: what lies beyond it (the padding) is dropped.
    func file(_ encrypted: [UInt8], encryptionKey: [UInt8], size: Int64) throws -> [UInt8]
}
