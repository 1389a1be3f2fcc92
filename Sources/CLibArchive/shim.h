#ifndef SANDBOX_AUDIT_CLIBARCHIVE_SHIM_H
#define SANDBOX_AUDIT_CLIBARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>

/* libarchive's AE_IF* file types are cast macros, which Swift does not import: the same
   values, from libarchive's own header. */
static const unsigned int sandbox_audit_ae_ifreg = AE_IFREG;
static const unsigned int sandbox_audit_ae_ifdir = AE_IFDIR;
static const unsigned int sandbox_audit_ae_iflnk = AE_IFLNK;
static const unsigned int sandbox_audit_ae_ififo = AE_IFIFO;
static const unsigned int sandbox_audit_ae_ifsock = AE_IFSOCK;
static const unsigned int sandbox_audit_ae_ifchr = AE_IFCHR;
static const unsigned int sandbox_audit_ae_ifblk = AE_IFBLK;
#endif
