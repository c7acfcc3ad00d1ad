/*
 * The CUDA part of the libvmaf C API the way FFmpeg's libvmaf_cuda filter
 * (6.1 and later) uses it, against the same pair scored on the CPU: a
 * CUcontext of the client's own (FFmpeg creates one), vmaf_cuda_state_init,
 * vmaf_cuda_import_state, vmaf_cuda_preallocate_pictures(DEVICE), then per
 * frame vmaf_cuda_fetch_preallocated_picture and a device-to-device copy into
 * it, vmaf_read_pictures, the flush and the scores. Also HOST_PINNED
 * pictures. Every per-frame and pooled value must equal the CPU context's
 * (==); prints frames per second of each run. First, with or without a GPU,
 * bad calls of the CUDA functions get their error codes.
 *
 * usage: capi_cuda REF.yuv DIS.yuv W H BPC [FRAMES]   (4:2:0 raw files)
 * Exit 0: equal; 1: a difference or an error; 77: no usable CUDA device
 * (ctest skips the test).
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libvmaf/libvmaf.h>
#include <libvmaf/libvmaf_cuda.h>

#define MAX_FRAMES 1024
#define N_FEATURES 9

static const char *const features[N_FEATURES] = {
    "VMAF_integer_feature_adm2_score",       "VMAF_integer_feature_motion2_score",
    "VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
    "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score",
    "psnr_y",                                "psnr_cb",
    "psnr_cr",
};

enum mode { CPU, DEVICE, PINNED };
static const char *const mode_names[] = {"cpu", "cuda device pictures", "cuda pinned pictures"};

struct run {
    double vmaf[MAX_FRAMES], feature[N_FEATURES][MAX_FRAMES], pooled[VMAF_POOL_METHOD_NB];
    unsigned frames;
    double seconds;
};

static void die(const char *what, long err)
{
    fprintf(stderr, "capi_cuda: %s failed (%ld)\n", what, err);
    exit(1);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One raw 4:2:0 frame into a host buffer laid out as the picture's planes. */
static int read_frame(FILE *f, unsigned char *buf, const VmafPicture *pic, unsigned w, unsigned h)
{
    const unsigned bps = pic->bpc > 8 ? 2 : 1;
    unsigned char *dst = buf;
    for (int p = 0; p < 3; p++) {
        const unsigned fw = p ? (w + 1) / 2 : w, fh = p ? (h + 1) / 2 : h;
        for (unsigned y = 0; y < fh; y++) {
            unsigned char row[65536];
            if (fw * bps > sizeof row || fread(row, bps, fw, f) != fw) return 0;
            if (y < pic->h[p]) memcpy(dst + (size_t)y * pic->stride[p], row, (size_t)pic->w[p] * bps);
        }
        dst += (size_t)pic->stride[p] * pic->h[p];
    }
    return 1;
}

/* The staged frame into pic: host memory (CPU, PINNED) or, as FFmpeg does,
 * one cudaMemcpy2D per plane from device memory (DEVICE). */
static void fill(enum mode mode, VmafPicture *pic, const unsigned char *host, void *staging)
{
    const unsigned bps = pic->bpc > 8 ? 2 : 1;
    size_t offset = 0;
    for (int p = 0; p < 3; p++) {
        const size_t bytes = (size_t)pic->stride[p] * pic->h[p];
        if (mode == DEVICE) {
            if (cudaMemcpy((char *)staging + offset, host + offset, bytes, cudaMemcpyHostToDevice) != cudaSuccess)
                die("cudaMemcpy", 0);
            if (cudaMemcpy2D(pic->data[p], (size_t)pic->stride[p], (char *)staging + offset, (size_t)pic->stride[p],
                             (size_t)pic->w[p] * bps, pic->h[p], cudaMemcpyDeviceToDevice) != cudaSuccess)
                die("cudaMemcpy2D", 0);
        } else {
            for (unsigned y = 0; y < pic->h[p]; y++)
                memcpy((char *)pic->data[p] + (size_t)y * pic->stride[p], host + offset + (size_t)y * pic->stride[p],
                       (size_t)pic->w[p] * bps);
        }
        offset += bytes;
    }
}

static void score(enum mode mode, CUcontext cu_ctx, char **argv, unsigned max_frames, struct run *out)
{
    const unsigned w = (unsigned)atoi(argv[3]), h = (unsigned)atoi(argv[4]), bpc = (unsigned)atoi(argv[5]);
    VmafContext *vmaf;
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_WARNING};
    int err = vmaf_init(&vmaf, cfg);
    if (err) die("vmaf_init", err);
    if (mode != CPU) {
        VmafCudaState *state;
        VmafCudaConfiguration cc = {.cu_ctx = cu_ctx};
        if ((err = vmaf_cuda_state_init(&state, cc))) die("vmaf_cuda_state_init", err);
        if ((err = vmaf_cuda_import_state(vmaf, state))) die("vmaf_cuda_import_state", err);
        VmafCudaPictureConfiguration pc = {
            .pic_params = {.w = w, .h = h, .bpc = bpc, .pix_fmt = VMAF_PIX_FMT_YUV420P},
            .pic_prealloc_method = mode == DEVICE ? VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE
                                                  : VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED,
        };
        if ((err = vmaf_cuda_preallocate_pictures(vmaf, pc))) die("vmaf_cuda_preallocate_pictures", err);
    }
    VmafModel *model;
    VmafModelConfig mc = {.name = "vmaf"};
    if ((err = vmaf_model_load(&model, &mc, "vmaf_v0.6.1"))) die("vmaf_model_load", err);
    if ((err = vmaf_use_features_from_model(vmaf, model))) die("vmaf_use_features_from_model", err);
    if ((err = vmaf_use_feature(vmaf, "psnr", NULL))) die("vmaf_use_feature", err);

    VmafPicture probe;
    if ((err = vmaf_picture_alloc(&probe, VMAF_PIX_FMT_YUV420P, bpc, w, h))) die("vmaf_picture_alloc", err);
    size_t frame_bytes = 0;
    for (int p = 0; p < 3; p++) frame_bytes += (size_t)probe.stride[p] * probe.h[p];
    unsigned char *host[2] = {malloc(frame_bytes), malloc(frame_bytes)};
    void *staging = NULL;
    if (!host[0] || !host[1]) die("malloc", 0);
    if (mode == DEVICE && cudaMalloc(&staging, frame_bytes) != cudaSuccess) die("cudaMalloc", 0);

    FILE *f[2] = {fopen(argv[1], "rb"), fopen(argv[2], "rb")};
    if (!f[0] || !f[1]) die("fopen", 0);
    const double t0 = now();
    unsigned n = 0;
    for (; n < max_frames && n < MAX_FRAMES; n++) {
        if (!read_frame(f[0], host[0], &probe, w, h) || !read_frame(f[1], host[1], &probe, w, h)) break;
        VmafPicture pic[2];
        for (int k = 0; k < 2; k++) {
            err = mode == CPU ? vmaf_picture_alloc(&pic[k], VMAF_PIX_FMT_YUV420P, bpc, w, h)
                              : vmaf_cuda_fetch_preallocated_picture(vmaf, &pic[k]);
            if (err) die("picture", err);
            fill(mode, &pic[k], host[k], staging);
        }
        if ((err = vmaf_read_pictures(vmaf, &pic[0], &pic[1], n))) die("vmaf_read_pictures", err);
    }
    if ((err = vmaf_read_pictures(vmaf, NULL, NULL, 0))) die("vmaf_read_pictures (flush)", err);
    out->seconds = now() - t0;
    out->frames = n;
    if (!n) die("reading the first frame", 0);
    for (unsigned i = 0; i < n; i++) {
        if ((err = vmaf_score_at_index(vmaf, model, &out->vmaf[i], i))) die("vmaf_score_at_index", err);
        for (int k = 0; k < N_FEATURES; k++)
            if ((err = vmaf_feature_score_at_index(vmaf, features[k], &out->feature[k][i], i)))
                die(features[k], err);
    }
    for (int p = VMAF_POOL_METHOD_MIN; p < VMAF_POOL_METHOD_NB; p++)
        if ((err = vmaf_score_pooled(vmaf, model, (enum VmafPoolingMethod)p, &out->pooled[p], 0, n - 1)))
            die("vmaf_score_pooled", err);
    fclose(f[0]);
    fclose(f[1]);
    free(host[0]);
    free(host[1]);
    if (staging) cudaFree(staging);
    vmaf_picture_unref(&probe);
    vmaf_model_destroy(model);
    if ((err = vmaf_close(vmaf))) die("vmaf_close", err);
}

static int compare(const struct run *cpu, const struct run *gpu, const char *label)
{
    int diffs = 0;
    if (cpu->frames != gpu->frames) {
        fprintf(stderr, "%s: %u frames, the CPU %u\n", label, gpu->frames, cpu->frames);
        return 1;
    }
    for (unsigned i = 0; i < cpu->frames; i++) {
        if (gpu->vmaf[i] != cpu->vmaf[i] && diffs++ < 10)
            fprintf(stderr, "%s: frame %u vmaf %.17g != cpu %.17g\n", label, i, gpu->vmaf[i], cpu->vmaf[i]);
        for (int k = 0; k < N_FEATURES; k++)
            if (gpu->feature[k][i] != cpu->feature[k][i] && diffs++ < 10)
                fprintf(stderr, "%s: frame %u %s %.17g != cpu %.17g\n", label, i, features[k], gpu->feature[k][i],
                        cpu->feature[k][i]);
    }
    for (int p = VMAF_POOL_METHOD_MIN; p < VMAF_POOL_METHOD_NB; p++)
        if (gpu->pooled[p] != cpu->pooled[p] && diffs++ < 10)
            fprintf(stderr, "%s: pooled %d %.17g != cpu %.17g\n", label, p, gpu->pooled[p], cpu->pooled[p]);
    printf("%s: %u frames, %.1f fps, vmaf mean %.17g, %s\n", label, gpu->frames, gpu->frames / gpu->seconds,
           gpu->pooled[VMAF_POOL_METHOD_MEAN], diffs ? "DIFFERS from the cpu" : "== cpu");
    return diffs != 0;
}

/* Bad calls of the CUDA functions: error codes, never a crash; runs with
 * or without a GPU. Returns the number of failed checks. */
static int misuse(void)
{
    int failures = 0;
#define EXPECT(expr, code)                                                            \
    do {                                                                              \
        const int got_ = (expr);                                                      \
        if (got_ != (code)) {                                                         \
            fprintf(stderr, "%s:%d: %s = %d, expected %d\n", __FILE__, __LINE__, #expr, \
                    got_, (code));                                                    \
            failures++;                                                               \
        }                                                                             \
    } while (0)
    VmafContext *vmaf;
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_NONE};
    if (vmaf_init(&vmaf, cfg)) return 1;
    VmafCudaConfiguration cc = {.cu_ctx = NULL};
    VmafPicture pic;
    VmafCudaPictureConfiguration pc = {
        .pic_params = {.w = 64, .h = 48, .bpc = 8, .pix_fmt = VMAF_PIX_FMT_YUV420P},
        .pic_prealloc_method = (enum VmafCudaPicturePreallocationMethod)9,
    };
    EXPECT(vmaf_cuda_state_init(NULL, cc), -EINVAL);
    EXPECT(vmaf_cuda_import_state(NULL, NULL), -EINVAL);
    EXPECT(vmaf_cuda_import_state(vmaf, NULL), -EINVAL);
    EXPECT(vmaf_cuda_fetch_preallocated_picture(vmaf, &pic), -EINVAL); /* nothing configured */
    EXPECT(vmaf_cuda_preallocate_pictures(NULL, pc), -EINVAL);
    EXPECT(vmaf_cuda_preallocate_pictures(vmaf, pc), -EINVAL); /* unknown method */
    pc.pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE;
    EXPECT(vmaf_cuda_preallocate_pictures(vmaf, pc), -EINVAL); /* no imported state */
    pc.pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST;
    pc.pic_params.bpc = 17;
    EXPECT(vmaf_cuda_preallocate_pictures(vmaf, pc), -EINVAL);
    pc.pic_params.bpc = 8;
    EXPECT(vmaf_cuda_preallocate_pictures(vmaf, pc), 0);
    EXPECT(vmaf_cuda_preallocate_pictures(vmaf, pc), -EINVAL); /* configured already */
    EXPECT(vmaf_cuda_fetch_preallocated_picture(vmaf, NULL), -EINVAL);
    EXPECT(vmaf_cuda_fetch_preallocated_picture(vmaf, &pic), 0);
    if (pic.w[0] != 64 || pic.h[1] != 24 || !pic.data[2]) failures++;
    EXPECT(vmaf_picture_unref(&pic), 0);
    EXPECT(vmaf_close(vmaf), 0);
    EXPECT(vmaf_cuda_fetch_preallocated_picture(vmaf, &pic), -EINVAL); /* closed */
#undef EXPECT
    printf("capi_cuda: CUDA API misuse, %d failures\n", failures);
    return failures;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: capi_cuda REF.yuv DIS.yuv W H BPC [FRAMES]\n");
        return 2;
    }
    const unsigned max_frames = argc > 6 ? (unsigned)atoi(argv[6]) : MAX_FRAMES;
    if (misuse()) return 1;
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
        printf("capi_cuda: no CUDA device, skipped\n");
        return 77;
    }
    /* A context of the client's own, as FFmpeg's hwcontext creates one. The
     * driver API comes through the runtime: no link to libcuda, so the test
     * starts (and skips) where no driver is installed. */
    CUresult (*ctx_create)(CUcontext *, unsigned, CUdevice) = NULL;
    CUresult (*ctx_destroy)(CUcontext) = NULL;
    void *fn[2] = {NULL, NULL};
    enum cudaDriverEntryPointQueryResult q[2];
    /* 11000: the ABI of cuCtxCreate_v2, FFmpeg's (later versions take
     * affinity or create parameters first). */
    if (cudaGetDriverEntryPointByVersion("cuCtxCreate", &fn[0], 11000, cudaEnableDefault, &q[0]) != cudaSuccess ||
        cudaGetDriverEntryPointByVersion("cuCtxDestroy", &fn[1], 12000, cudaEnableDefault, &q[1]) != cudaSuccess ||
        q[0] != cudaDriverEntryPointSuccess || q[1] != cudaDriverEntryPointSuccess)
        die("cudaGetDriverEntryPointByVersion", 0);
    memcpy(&ctx_create, &fn[0], sizeof fn[0]);
    memcpy(&ctx_destroy, &fn[1], sizeof fn[1]);
    CUcontext ctx = NULL;
    const CUresult created = ctx_create(&ctx, 0, 0);
    if (created != CUDA_SUCCESS) die("cuCtxCreate", (long)created);

    static struct run runs[3];
    score(CPU, NULL, argv, max_frames, &runs[CPU]);
    printf("%s: %u frames, %.1f fps, vmaf mean %.17g\n", mode_names[CPU], runs[CPU].frames,
           runs[CPU].frames / runs[CPU].seconds, runs[CPU].pooled[VMAF_POOL_METHOD_MEAN]);
    int failed = 0;
    for (int m = DEVICE; m <= PINNED; m++) {
        score((enum mode)m, ctx, argv, max_frames, &runs[m]);
        failed |= compare(&runs[CPU], &runs[m], mode_names[m]);
    }
    ctx_destroy(ctx);
    return failed;
}
