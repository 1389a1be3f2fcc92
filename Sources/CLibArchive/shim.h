#ifndef SANDBOX_AUDIT_CLIBARCHIVE_SHIM_H
#define SANDBOX_AUDIT_CLIBARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#include <locale.h>
#if defined(__APPLE__)
#include <xlocale.h>
#endif

/* libarchive's AE_IF* file types are cast macros, which Swift does not import: the same
   values, from libarchive's own header. */
static const unsigned int sandbox_audit_ae_ifreg = AE_IFREG;
static const unsigned int sandbox_audit_ae_ifdir = AE_IFDIR;
static const unsigned int sandbox_audit_ae_iflnk = AE_IFLNK;
static const unsigned int sandbox_audit_ae_ififo = AE_IFIFO;
static const unsigned int sandbox_audit_ae_ifsock = AE_IFSOCK;
static const unsigned int sandbox_audit_ae_ifchr = AE_IFCHR;
static const unsigned int sandbox_audit_ae_ifblk = AE_IFBLK;

/* A locale whose character type is UTF-8 (the rest "C"), for the thread reading an archive:
   libarchive converts names stored as UTF-8 (a zip's UTF-8 flag, pax records) to the locale's
   charset, and in the "C" locale a process starts in, it gives NULL for every non-ASCII one.
   NULL when the system has no UTF-8 locale. */
static inline locale_t sandbox_audit_utf8_ctype_locale(void) {
    const char *names[] = {"C.UTF-8", "C.utf8", "en_US.UTF-8", "UTF-8"};
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
        locale_t l = newlocale(LC_CTYPE_MASK, names[i], (locale_t)0);
        if (l) return l;
    }
    return (locale_t)0;
}
#endif
