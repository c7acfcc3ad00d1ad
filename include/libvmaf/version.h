/*
 * libvmaf-compatible C API of twinmaf: the libvmaf API version it provides
 * (libvmaf 3.2.0; twinmaf's own version is vmaf_version()).
 */
#ifndef VMAF_VERSION_H
#define VMAF_VERSION_H

#define VMAF_API_VERSION_MAJOR 3
#define VMAF_API_VERSION_MINOR 2
#define VMAF_API_VERSION_PATCH 0

#endif /* VMAF_VERSION_H */
