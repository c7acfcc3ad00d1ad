/*
 * libvmaf-compatible C API of twinmaf: pictures.
 *
 * Declarations follow libvmaf 3.2 (same names, types, values and layout); the
 * text is twinmaf's. See docs/capi.md.
 */
#ifndef __VMAF_PICTURE_H__
#define __VMAF_PICTURE_H__

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum VmafPixelFormat {
    VMAF_PIX_FMT_UNKNOWN,
    VMAF_PIX_FMT_YUV420P,
    VMAF_PIX_FMT_YUV422P,
    VMAF_PIX_FMT_YUV444P,
    VMAF_PIX_FMT_YUV400P,
};

/* Reference count of a picture's buffer (opaque). */
typedef struct VmafRef VmafRef;

/*
 * A planar picture. Samples of bpc 8 are bytes, of bpc 9..16 native-endian
 * uint16_t. Plane p has w[p] x h[p] samples, rows stride[p] bytes apart
 * starting at data[p]. Chroma sizes round down: w/2 for 4:2:0 and 4:2:2,
 * h/2 for 4:2:0; 4:0:0 pictures have no chroma planes (sizes 0, data NULL).
 * `ref` and `priv` belong to the library.
 */
typedef struct VmafPicture {
    enum VmafPixelFormat pix_fmt;
    unsigned bpc;
    unsigned w[3], h[3];
    ptrdiff_t stride[3];
    void *data[3];
    VmafRef *ref;
    void *priv;
} VmafPicture;

/**
 * Allocates a zero-filled picture with one reference, to be released with
 * vmaf_picture_unref() or handed to vmaf_read_pictures(). Rows are 32-byte
 * aligned.
 *
 * @return 0; -EINVAL if pic is NULL, pix_fmt is not one of the four formats,
 *         bpc is outside 8..16, or w or h is 0 or above 32768; -ENOMEM.
 */
int vmaf_picture_alloc(VmafPicture *pic, enum VmafPixelFormat pix_fmt,
                       unsigned bpc, unsigned w, unsigned h);

/**
 * Drops one reference; the last one frees the buffer (or returns it to the
 * pool it came from). The struct is zeroed.
 *
 * @return 0, -EINVAL if pic is NULL or holds no reference.
 */
int vmaf_picture_unref(VmafPicture *pic);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_PICTURE_H__ */
