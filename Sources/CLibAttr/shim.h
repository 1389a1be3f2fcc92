#ifndef SANDBOX_AUDIT_CLIBATTR_SHIM_H
#define SANDBOX_AUDIT_CLIBATTR_SHIM_H
/* Linux only (Package.swift: condition .linux). Empty elsewhere, so that a build system that
   hands this module to a macOS compile anyway (SwiftPM's XCBuild path: swift-package-manager
   #6554, #8283) finds nothing missing; XAttr.swift imports it only under os(Linux). */
#if defined(__linux__)
#include <sys/types.h>
#include <sys/xattr.h>
#include <attr/libattr.h>
#include <attr/error_context.h>
#endif
#endif
