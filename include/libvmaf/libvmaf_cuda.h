/*
 * libvmaf-compatible C API of twinmaf: CUDA. Installed by builds with the
 * CUDA backend. With an imported CUDA state, every feature that has a CUDA
 * twin runs on the GPU (results equal the CPU's, bit for bit), and pictures
 * may live in device memory.
 *
 * Declarations follow libvmaf 3.2 (same names, types, values and layout); the
 * text is twinmaf's. See docs/capi.md ("CUDA").
 */
#ifndef __VMAF_CUDA_H__
#define __VMAF_CUDA_H__

#include "libvmaf/libvmaf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A CUDA device to score on (opaque). */
typedef struct VmafCudaState VmafCudaState;

/* cu_ctx: a CUcontext whose device is used; NULL: device 0. */
typedef struct VmafCudaConfiguration {
    void *cu_ctx;
} VmafCudaConfiguration;

/**
 * Creates a CUDA state in *cu_state, freed by the vmaf_close() of the last
 * context it was imported into (never freed if never imported: libvmaf has
 * no call for it).
 *
 * @return 0; -EINVAL if cu_state is NULL, no CUDA device is usable or
 *         cu_ctx is not a valid context; -ENOMEM.
 */
int vmaf_cuda_state_init(VmafCudaState **cu_state, VmafCudaConfiguration cfg);

/**
 * Lets the context compute on the state's device: made before the first
 * registration (vmaf_use_feature(), vmaf_use_features_from_model()), every
 * feature with a CUDA twin runs on the GPU, unless the context's gpumask is
 * set; made later, all stay on the CPU.
 *
 * @return 0; -EINVAL if an argument is NULL or invalid, or the context has
 *         another state.
 */
int vmaf_cuda_import_state(VmafContext *vmaf, VmafCudaState *cu_state);

enum VmafCudaPicturePreallocationMethod {
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE = 0,
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST,
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED,
};

/* Pictures vmaf_cuda_fetch_preallocated_picture() hands out: their size,
 * format and depth, and where their samples live. */
typedef struct VmafCudaPictureConfiguration {
    struct {
        unsigned w, h;
        unsigned bpc;
        enum VmafPixelFormat pix_fmt;
    } pic_params;
    enum VmafCudaPicturePreallocationMethod pic_prealloc_method;
} VmafCudaPictureConfiguration;

/**
 * Configures the pictures vmaf_cuda_fetch_preallocated_picture() gives:
 * DEVICE: a ring of device buffers (data[] are CUDA device pointers, rows
 * stride[] bytes apart); HOST: host pictures as vmaf_picture_alloc();
 * HOST_PINNED: page-locked host pictures; NONE: none.
 *
 * @return 0; -EINVAL if vmaf is NULL, the method is unknown or the picture
 *         parameters are invalid (as vmaf_picture_alloc()); -ENOMEM.
 */
int vmaf_cuda_preallocate_pictures(VmafContext *vmaf,
                                   VmafCudaPictureConfiguration cfg);

/**
 * A picture as configured by vmaf_cuda_preallocate_pictures(), to be filled
 * and handed to vmaf_read_pictures() (or released with vmaf_picture_unref()).
 * Device pictures come from a ring of a few buffers, reused in turn.
 *
 * @return 0; -EINVAL if vmaf or pic is NULL or no pictures were
 *         configured; -ENOMEM.
 */
int vmaf_cuda_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture* pic);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_CUDA_H__ */
