/*
 * Misuse of the libvmaf C API gets libvmaf's error codes, never a crash
 * (docs/capi.md). Written against libvmaf's documented API only (C11).
 *
 * usage: capi_misuse MODEL.json [--libvmaf-safe]
 * Each check says whether libvmaf f85a8536 itself returns that code
 * (shared) or crashes / misbehaves there (twinmaf's own answer);
 * --libvmaf-safe runs the shared ones only, so the same source can be run
 * against libvmaf's library to confirm them.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvmaf/libvmaf.h>

static int failures, checks, safe_only;

#define CHECK(expr, expected, shared)                                                      \
    do {                                                                                   \
        if (!safe_only || (shared)) {                                                      \
            const int got_ = (expr);                                                       \
            checks++;                                                                      \
            if (got_ != (expected)) {                                                      \
                fprintf(stderr, "%s:%d: %s = %d, expected %d\n", __FILE__, __LINE__, #expr, got_, \
                        (expected));                                                       \
                failures++;                                                                \
            }                                                                              \
        }                                                                                  \
    } while (0)

#define TRUE_(cond)                                                                        \
    do {                                                                                   \
        checks++;                                                                          \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: %s is false\n", __FILE__, __LINE__, #cond);            \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

enum { SHARED = 1, OURS = 0 };

static void fill(VmafPicture *p, unsigned seed)
{
    for (int c = 0; c < 3; c++)
        for (unsigned y = 0; y < p->h[c]; y++)
            for (unsigned x = 0; x < p->w[c]; x++)
                ((unsigned char *)p->data[c])[y * p->stride[c] + x] = (unsigned char)((x * 7 + y * 3 + seed * 11) & 0xff);
}

static VmafContext *context(void)
{
    VmafContext *vmaf = NULL;
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_NONE};
    if (vmaf_init(&vmaf, cfg)) exit(1);
    return vmaf;
}

/* A thread reading pictures until a call fails (the context was closed
 * under it). */
static void *read_until_closed(void *arg)
{
    VmafContext *vmaf = arg;
    for (unsigned i = 0;; i++) {
        VmafPicture r, d;
        if (vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 64, 48)) return NULL;
        if (vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV420P, 8, 64, 48)) return NULL;
        fill(&r, i);
        fill(&d, i + 1);
        if (vmaf_read_pictures(vmaf, &r, &d, i)) {
            vmaf_picture_unref(&r);
            vmaf_picture_unref(&d);
            return NULL;
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    const char *model_path = argv[1];
    safe_only = argc > 2 && !strcmp(argv[2], "--libvmaf-safe");
    VmafConfiguration quiet = {.log_level = VMAF_LOG_LEVEL_NONE};

    TRUE_(vmaf_version() != NULL && vmaf_version()[0] != '\0');
    CHECK(vmaf_init(NULL, quiet), -EINVAL, SHARED);

    /* Dictionaries. */
    VmafFeatureDictionary *d = NULL;
    CHECK(vmaf_feature_dictionary_set(NULL, "k", "v"), -EINVAL, SHARED);
    CHECK(vmaf_feature_dictionary_set(&d, NULL, "v"), -EINVAL, SHARED);
    CHECK(vmaf_feature_dictionary_set(&d, "k", NULL), -EINVAL, OURS); /* libvmaf: sscanf(NULL) */
    CHECK(vmaf_feature_dictionary_free(NULL), -EINVAL, SHARED);
    CHECK(vmaf_feature_dictionary_free(&d), 0, SHARED);
    CHECK(vmaf_feature_dictionary_set(&d, "enable_chroma", "false"), 0, SHARED);
    CHECK(vmaf_feature_dictionary_set(&d, "enable_chroma", "true"), 0, SHARED);
    CHECK(vmaf_feature_dictionary_free(&d), 0, SHARED);
    TRUE_(d == NULL);

    /* Models. */
    VmafModel *model = NULL, *m2 = NULL;
    VmafModelCollection *mc = NULL;
    VmafModelConfig mcfg = {.name = "vmaf"};
    CHECK(vmaf_model_load(&model, &mcfg, "no_such_model"), -EINVAL, SHARED);
    CHECK(vmaf_model_load(&model, &mcfg, NULL), -EINVAL, OURS);       /* libvmaf: strcmp(NULL) */
    CHECK(vmaf_model_load(&model, NULL, "vmaf_v0.6.1"), -EINVAL, OURS); /* libvmaf: NULL cfg read */
    CHECK(vmaf_model_load(NULL, &mcfg, "vmaf_v0.6.1"), -EINVAL, OURS);
    CHECK(vmaf_model_load_from_path(&model, &mcfg, "/nonexistent/model.json"), -EINVAL, SHARED);
    CHECK(vmaf_model_load_from_path(&model, &mcfg, "/nonexistent/model.pkl"), -EINVAL, SHARED);
    CHECK(vmaf_model_load(&model, &mcfg, "vmaf_b_v0.6.3"), -EINVAL, SHARED); /* a collection */
    CHECK(vmaf_model_collection_load(&m2, &mc, &mcfg, "vmaf_v0.6.1"), -EINVAL, SHARED);
    CHECK(vmaf_model_collection_load(&m2, &mc, &mcfg, "vmaf_b_v0.6.3"), 0, SHARED);
    CHECK(vmaf_model_collection_feature_overload(m2, NULL, "adm", NULL), -EINVAL, SHARED);
    vmaf_model_collection_destroy(mc);
    vmaf_model_destroy(m2);
    vmaf_model_collection_destroy(NULL);
    vmaf_model_destroy(NULL);
    CHECK(vmaf_model_load_from_path(&model, &mcfg, model_path), 0, SHARED);
    CHECK(vmaf_model_feature_overload(NULL, "adm", NULL), -EINVAL, SHARED);
    CHECK(vmaf_model_feature_overload(model, NULL, NULL), -EINVAL, SHARED);
    CHECK(vmaf_model_feature_overload(model, "adm", NULL), -EINVAL, SHARED);

    /* Pictures. */
    VmafPicture a, b;
    CHECK(vmaf_picture_alloc(NULL, VMAF_PIX_FMT_YUV420P, 8, 64, 48), -EINVAL, SHARED);
    CHECK(vmaf_picture_alloc(&a, VMAF_PIX_FMT_UNKNOWN, 8, 64, 48), -EINVAL, SHARED);
    CHECK(vmaf_picture_alloc(&a, VMAF_PIX_FMT_YUV420P, 7, 64, 48), -EINVAL, SHARED);
    CHECK(vmaf_picture_alloc(&a, VMAF_PIX_FMT_YUV420P, 17, 64, 48), -EINVAL, SHARED);
    CHECK(vmaf_picture_alloc(&a, (enum VmafPixelFormat)9, 8, 64, 48), -EINVAL, OURS); /* libvmaf: allocates */
    CHECK(vmaf_picture_alloc(&a, VMAF_PIX_FMT_YUV420P, 8, 0, 48), -EINVAL, OURS);     /* libvmaf: allocates */
    CHECK(vmaf_picture_unref(NULL), -EINVAL, SHARED);
    CHECK(vmaf_picture_alloc(&a, VMAF_PIX_FMT_YUV420P, 8, 65, 49), 0, SHARED);
    TRUE_(a.w[1] == 32 && a.h[1] == 24 && a.stride[0] == 96 && a.stride[1] == 32);
    CHECK(vmaf_picture_unref(&a), 0, SHARED);
    CHECK(vmaf_picture_unref(&a), -EINVAL, SHARED); /* zeroed by the first */
    CHECK(vmaf_picture_alloc(&a, VMAF_PIX_FMT_YUV400P, 10, 33, 17), 0, SHARED);
    TRUE_(a.data[1] == NULL && a.w[1] == 0 && a.stride[0] == 128);
    CHECK(vmaf_picture_unref(&a), 0, SHARED);

    /* Registration. */
    VmafContext *vmaf = context();
    CHECK(vmaf_use_feature(NULL, "psnr", NULL), -EINVAL, SHARED);
    CHECK(vmaf_use_feature(vmaf, NULL, NULL), -EINVAL, SHARED);
    CHECK(vmaf_use_feature(vmaf, "no_such_feature", NULL), -EINVAL, SHARED);
    d = NULL;
    vmaf_feature_dictionary_set(&d, "enable_chroma", "maybe");
    CHECK(vmaf_use_feature(vmaf, "psnr", d), -EINVAL, SHARED); /* not a bool */
    /* d was consumed (as libvmaf does once the extractor is known). */
    d = NULL;
    vmaf_feature_dictionary_set(&d, "enable_chroma", "false");
    CHECK(vmaf_use_feature(vmaf, "no_such_feature", d), -EINVAL, SHARED);
    CHECK(vmaf_feature_dictionary_free(&d), 0, SHARED); /* an unknown name leaves d to the caller */
    CHECK(vmaf_use_features_from_model(NULL, model), -EINVAL, SHARED);
    CHECK(vmaf_use_features_from_model(vmaf, NULL), -EINVAL, SHARED);
    CHECK(vmaf_use_features_from_model_collection(vmaf, NULL), -EINVAL, SHARED);
    CHECK(vmaf_use_features_from_model(vmaf, model), 0, SHARED);
    d = NULL;
    vmaf_feature_dictionary_set(&d, "enable_mse", "true");
    CHECK(vmaf_use_feature(vmaf, "psnr", d), 0, SHARED);

    /* Preallocated pictures. */
    CHECK(vmaf_fetch_preallocated_picture(vmaf, &a), -EINVAL, SHARED); /* no pool */
    VmafPictureConfiguration pc = {.pic_params = {.w = 64, .h = 48, .bpc = 8, .pix_fmt = VMAF_PIX_FMT_YUV420P},
                                   .pic_cnt = 0};
    CHECK(vmaf_preallocate_pictures(vmaf, pc), -EINVAL, SHARED);
    CHECK(vmaf_preallocate_pictures(NULL, pc), -EINVAL, SHARED);
    pc.pic_cnt = 3; /* libvmaf keeps the two previous references of a pool */
    CHECK(vmaf_preallocate_pictures(vmaf, pc), 0, SHARED);
    CHECK(vmaf_fetch_preallocated_picture(vmaf, NULL), -EINVAL, SHARED);

    /* Reading pictures. */
    CHECK(vmaf_fetch_preallocated_picture(vmaf, &a), 0, SHARED);
    CHECK(vmaf_picture_alloc(&b, VMAF_PIX_FMT_YUV420P, 8, 64, 48), 0, SHARED);
    fill(&a, 1);
    fill(&b, 2);
    CHECK(vmaf_read_pictures(NULL, &a, &b, 0), -EINVAL, SHARED);
    CHECK(vmaf_read_pictures(vmaf, &a, NULL, 0), -EINVAL, SHARED);
    CHECK(vmaf_read_pictures(vmaf, NULL, &b, 0), -EINVAL, SHARED);
    CHECK(vmaf_read_pictures(vmaf, &a, &b, 5), -EINVAL, OURS); /* libvmaf takes any index */
    VmafPicture fake = a;
    fake.priv = NULL;
    fake.ref = NULL;
    CHECK(vmaf_read_pictures(vmaf, &fake, &b, 0), -EINVAL, OURS); /* libvmaf: NULL priv read */
    VmafPicture c;
    CHECK(vmaf_picture_alloc(&c, VMAF_PIX_FMT_YUV420P, 8, 32, 48), 0, SHARED);
    CHECK(vmaf_read_pictures(vmaf, &a, &c, 0), -EINVAL, SHARED); /* sizes differ */
    CHECK(vmaf_picture_unref(&c), 0, SHARED);
    CHECK(vmaf_picture_alloc(&c, VMAF_PIX_FMT_YUV444P, 8, 64, 48), 0, SHARED);
    CHECK(vmaf_read_pictures(vmaf, &a, &c, 0), -EINVAL, SHARED); /* formats differ */
    CHECK(vmaf_picture_unref(&c), 0, SHARED);
    CHECK(vmaf_picture_alloc(&c, VMAF_PIX_FMT_YUV420P, 10, 64, 48), 0, SHARED);
    CHECK(vmaf_read_pictures(vmaf, &a, &c, 0), -EINVAL, OURS); /* depths differ: libvmaf reads on */
    CHECK(vmaf_picture_unref(&c), 0, SHARED);
    CHECK(vmaf_read_pictures(vmaf, &a, &b, 0), 0, SHARED);
    TRUE_(a.ref == NULL && b.ref == NULL); /* the context took both */
    CHECK(vmaf_use_feature(vmaf, "psnr_hvs", NULL), -EINVAL, OURS); /* registration is over */
    for (unsigned i = 1; i < 3; i++) {
        CHECK(vmaf_fetch_preallocated_picture(vmaf, &a), 0, SHARED);
        CHECK(vmaf_picture_alloc(&b, VMAF_PIX_FMT_YUV420P, 8, 64, 48), 0, SHARED);
        fill(&a, i);
        fill(&b, i + 7);
        CHECK(vmaf_read_pictures(vmaf, &a, &b, i), 0, SHARED);
    }
    CHECK(vmaf_picture_alloc(&c, VMAF_PIX_FMT_YUV420P, 8, 96, 48), 0, SHARED);
    CHECK(vmaf_picture_alloc(&b, VMAF_PIX_FMT_YUV420P, 8, 96, 48), 0, SHARED);
    CHECK(vmaf_read_pictures(vmaf, &c, &b, 3), -EINVAL, SHARED); /* not the first pictures' size */
    CHECK(vmaf_picture_unref(&c), 0, SHARED);
    CHECK(vmaf_picture_unref(&b), 0, SHARED);
    double s = -1;
    CHECK(vmaf_score_at_index(vmaf, model, &s, 0), -EINVAL, OURS); /* before the flush */
    CHECK(vmaf_read_pictures(vmaf, NULL, NULL, 0), 0, SHARED);     /* flush */
    CHECK(vmaf_read_pictures(vmaf, NULL, NULL, 0), -EINVAL, SHARED);
    CHECK(vmaf_picture_alloc(&a, VMAF_PIX_FMT_YUV420P, 8, 64, 48), 0, SHARED);
    CHECK(vmaf_picture_alloc(&b, VMAF_PIX_FMT_YUV420P, 8, 64, 48), 0, SHARED);
    CHECK(vmaf_read_pictures(vmaf, &a, &b, 3), -EINVAL, SHARED); /* after the flush */
    CHECK(vmaf_picture_unref(&a), 0, SHARED);                    /* still the caller's */
    CHECK(vmaf_picture_unref(&b), 0, SHARED);

    /* Scores. */
    CHECK(vmaf_score_at_index(NULL, model, &s, 0), -EINVAL, SHARED);
    CHECK(vmaf_score_at_index(vmaf, NULL, &s, 0), -EINVAL, SHARED);
    CHECK(vmaf_score_at_index(vmaf, model, NULL, 0), -EINVAL, SHARED);
    CHECK(vmaf_score_at_index(vmaf, model, &s, 3), -EINVAL, SHARED); /* no such picture */
    CHECK(vmaf_score_at_index(vmaf, model, &s, 2), 0, SHARED);
    TRUE_(s >= 0 && s <= 100);
    CHECK(vmaf_feature_score_at_index(vmaf, "VMAF_integer_feature_adm2_score", &s, 2), 0, SHARED);
    CHECK(vmaf_feature_score_at_index(vmaf, "integer_adm2", &s, 2), -EINVAL, SHARED); /* printed name */
    CHECK(vmaf_feature_score_at_index(vmaf, NULL, &s, 0), -EINVAL, SHARED);
    CHECK(vmaf_feature_score_at_index(vmaf, "psnr_y", NULL, 0), -EINVAL, SHARED);
    CHECK(vmaf_feature_score_pooled(vmaf, "psnr_y", VMAF_POOL_METHOD_UNKNOWN, &s, 0, 2), -EINVAL, SHARED);
    CHECK(vmaf_feature_score_pooled(vmaf, "psnr_y", VMAF_POOL_METHOD_NB, &s, 0, 2), -EINVAL, SHARED);
    CHECK(vmaf_feature_score_pooled(vmaf, "psnr_y", VMAF_POOL_METHOD_MEAN, &s, 2, 1), -EINVAL, SHARED);
    CHECK(vmaf_feature_score_pooled(vmaf, "psnr_y", VMAF_POOL_METHOD_MEAN, &s, 0, 3), -EINVAL, SHARED);
    CHECK(vmaf_feature_score_pooled(vmaf, "psnr_y", VMAF_POOL_METHOD_MEAN, &s, 0, 2), 0, SHARED);
    CHECK(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_UNKNOWN, &s, 0, 2), -EINVAL, SHARED);
    CHECK(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &s, 0, 3), -EINVAL, SHARED);
    CHECK(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_HARMONIC_MEAN, &s, 0, 2), 0, SHARED);
    CHECK(vmaf_import_feature_score(vmaf, NULL, 1.0, 0), -EINVAL, SHARED);
    CHECK(vmaf_import_feature_score(vmaf, "psnr_y", 1.0, 0), -EINVAL, SHARED); /* written already */
    CHECK(vmaf_import_feature_score(vmaf, "my_feature", 1.5, 1), 0, SHARED);
    CHECK(vmaf_feature_score_at_index(vmaf, "my_feature", &s, 1), 0, SHARED);
    TRUE_(s == 1.5);
    CHECK(vmaf_write_output(vmaf, "/nonexistent/dir/out.json", VMAF_OUTPUT_FORMAT_JSON), -EINVAL, SHARED);
    CHECK(vmaf_write_output(vmaf, NULL, VMAF_OUTPUT_FORMAT_JSON), -EINVAL, OURS); /* libvmaf: fopen(NULL) */
    CHECK(vmaf_write_output(NULL, "out.json", VMAF_OUTPUT_FORMAT_JSON), -EINVAL, OURS);
    CHECK(vmaf_close(vmaf), 0, SHARED);
    CHECK(vmaf_close(NULL), -EINVAL, SHARED);
    /* A closed context is not touched. */
    CHECK(vmaf_read_pictures(vmaf, NULL, NULL, 0), -EINVAL, OURS);
    CHECK(vmaf_score_at_index(vmaf, model, &s, 0), -EINVAL, OURS);
    CHECK(vmaf_close(vmaf), -EINVAL, OURS);

    /* Imported features give the model's prediction: libvmaf's values of
     * frame 0 of synth_576x324_420p8_48f__x264crf38 (golden vmaf_v0.6.1). */
    vmaf = context();
    static const struct { const char *name; double value; } frame0[] = {
        {"VMAF_integer_feature_adm2_score", 0.9459856685580538},
        {"VMAF_integer_feature_motion2_score", 0},
        {"VMAF_integer_feature_vif_scale0_score", 0.648773193359375},
        {"VMAF_integer_feature_vif_scale1_score", 0.8597362637519836},
        {"VMAF_integer_feature_vif_scale2_score", 0.9086164236068726},
        {"VMAF_integer_feature_vif_scale3_score", 0.9358865022659302},
    };
    CHECK(vmaf_score_at_index(vmaf, model, &s, 0), -EINVAL, SHARED); /* nothing to predict from */
    for (unsigned i = 0; i < sizeof frame0 / sizeof frame0[0]; i++)
        CHECK(vmaf_import_feature_score(vmaf, frame0[i].name, frame0[i].value, 0), 0, SHARED);
    s = 0;
    CHECK(vmaf_score_at_index(vmaf, model, &s, 0), 0, SHARED);
    TRUE_(s == 76.73384923941074);
    CHECK(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MAX, &s, 0, 0), 0, SHARED);
    TRUE_(s == 76.73384923941074);
    CHECK(vmaf_close(vmaf), 0, SHARED);

    /* vmaf_close while another thread is inside vmaf_read_pictures: the close
     * waits for that call, later calls get -EINVAL; never a hang or a crash
     * (libvmaf: undefined). */
    for (int run = 0; run < (safe_only ? 0 : 40); run++) {
        vmaf = context();
        CHECK(vmaf_use_features_from_model(vmaf, model), 0, OURS);
        pthread_t reader;
        TRUE_(pthread_create(&reader, NULL, read_until_closed, vmaf) == 0);
        struct timespec pause = {0, (run % 8) * 1000000L};
        nanosleep(&pause, NULL);
        CHECK(vmaf_close(vmaf), 0, OURS);
        TRUE_(pthread_join(reader, NULL) == 0);
    }

    vmaf_model_destroy(model);
    CHECK(vmaf_use_features_from_model(context(), model), -EINVAL, OURS); /* destroyed model */
    printf("capi_misuse: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
