/*
 * A libvmaf client written against libvmaf's documented C API only (C11,
 * <libvmaf/libvmaf.h>): it scores two raw YUV files with the models and
 * features asked for and prints every value it can read back, so that the
 * same source, built against libvmaf or against twinmaf's libvmaf, prints
 * the same lines (tests/capi/check_capi.py compares them with libvmaf's
 * golden values).
 *
 * usage: capi_score [options] REF.yuv DIS.yuv W H 420|422|444|400 BPC
 *   -t N            n_threads
 *   -s N            n_subsample
 *   -m KIND:ARG:NAME  a model: KIND version or path, NAME its score's name
 *   -c KIND:ARG:NAME  a bootstrap collection (main model and members)
 *   -f NAME[,K=V]*  a feature extractor with an option dictionary
 *   -q NAME         a stored feature name to print per frame and pooled
 *   -o PREFIX       write PREFIX.xml, .json, .csv and .sub
 *   -p              reference pictures from vmaf_preallocate_pictures
 *   -n N            read at most N frames
 * Output lines (values %.17g, "none" where the call fails):
 *   feature NAME FRAME VALUE | pooled NAME METHOD VALUE
 *   model NAME FRAME VALUE   | model_pooled NAME METHOD VALUE
 *   collection_pooled NAME mean BAGGING STDDEV LO HI
 *   frames N
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvmaf/libvmaf.h>

#define MAX_ITEMS 16

struct model_arg {
    char kind[16], arg[512], name[128];
    int collection;
    VmafModel *model;
    VmafModelCollection *members;
};

static int die(const char *what, int err)
{
    fprintf(stderr, "capi_score: %s failed (%d)\n", what, err);
    exit(1);
}

static int parse_model(const char *text, struct model_arg *m)
{
    const char *a = strchr(text, ':');
    const char *b = a ? strrchr(text, ':') : NULL;
    if (!a || a == b) return -1;
    snprintf(m->kind, sizeof m->kind, "%.*s", (int)(a - text), text);
    snprintf(m->arg, sizeof m->arg, "%.*s", (int)(b - a - 1), a + 1);
    snprintf(m->name, sizeof m->name, "%s", b + 1);
    return 0;
}

/* "psnr,enable_mse=true,enable_apsnr=true" */
static void use_feature(VmafContext *vmaf, const char *text)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    char *name = strtok_r(buf, ",", &save);
    VmafFeatureDictionary *dict = NULL;
    for (char *kv = strtok_r(NULL, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) die("feature option", -EINVAL);
        *eq = '\0';
        int err = vmaf_feature_dictionary_set(&dict, kv, eq + 1);
        if (err) die("vmaf_feature_dictionary_set", err);
    }
    int err = vmaf_use_feature(vmaf, name, dict);
    if (err) {
        vmaf_feature_dictionary_free(&dict);
        die("vmaf_use_feature", err);
    }
}

static void print_value(int err, double v)
{
    if (err)
        printf(" none");
    else
        printf(" %.17g", v);
}

/* Reads one frame of a raw file (planes of the file's rounded-up size) into
 * pic (plane sizes rounded down). Returns 0 at the end of the file. */
static int read_frame(FILE *f, VmafPicture *pic, unsigned w, unsigned h, int sub_w, int sub_h, int planes)
{
    const unsigned bps = pic->bpc > 8 ? 2 : 1;
    for (int p = 0; p < planes; p++) {
        const unsigned fw = p ? (sub_w ? (w + 1) / 2 : w) : w;
        const unsigned fh = p ? (sub_h ? (h + 1) / 2 : h) : h;
        unsigned char *row = malloc((size_t)fw * bps);
        if (!row) die("malloc", -ENOMEM);
        for (unsigned y = 0; y < fh; y++) {
            if (fread(row, bps, fw, f) != fw) {
                free(row);
                return 0;
            }
            if (y < pic->h[p])
                memcpy((unsigned char *)pic->data[p] + (size_t)y * pic->stride[p], row, (size_t)pic->w[p] * bps);
        }
        free(row);
    }
    return 1;
}

int main(int argc, char **argv)
{
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_WARNING};
    struct model_arg models[MAX_ITEMS];
    const char *features[MAX_ITEMS], *queries[64], *out = NULL;
    int n_models = 0, n_features = 0, n_queries = 0, prealloc = 0;
    unsigned max_frames = ~0u;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i += 2) {
        const char opt = argv[i][1];
        if (opt == 'p') {
            prealloc = 1;
            i--;
            continue;
        }
        if (i + 1 >= argc) die("arguments", -EINVAL);
        const char *v = argv[i + 1];
        switch (opt) {
        case 't': cfg.n_threads = (unsigned)atoi(v); break;
        case 's': cfg.n_subsample = (unsigned)atoi(v); break;
        case 'n': max_frames = (unsigned)atoi(v); break;
        case 'm':
        case 'c':
            if (n_models == MAX_ITEMS || parse_model(v, &models[n_models])) die("-m/-c", -EINVAL);
            models[n_models++].collection = opt == 'c';
            break;
        case 'f': if (n_features < MAX_ITEMS) features[n_features++] = v; break;
        case 'q': if (n_queries < 64) queries[n_queries++] = v; break;
        case 'o': out = v; break;
        default: die("arguments", -EINVAL);
        }
    }
    if (argc - i != 6) {
        fprintf(stderr, "usage: capi_score [options] REF DIS W H 420|422|444|400 BPC\n");
        return 2;
    }
    const char *ref_path = argv[i], *dis_path = argv[i + 1];
    const unsigned w = (unsigned)atoi(argv[i + 2]), h = (unsigned)atoi(argv[i + 3]);
    const char *layout = argv[i + 4];
    const unsigned bpc = (unsigned)atoi(argv[i + 5]);
    enum VmafPixelFormat pix_fmt = !strcmp(layout, "420") ? VMAF_PIX_FMT_YUV420P
                                 : !strcmp(layout, "422") ? VMAF_PIX_FMT_YUV422P
                                 : !strcmp(layout, "444") ? VMAF_PIX_FMT_YUV444P
                                 : !strcmp(layout, "400") ? VMAF_PIX_FMT_YUV400P
                                                          : VMAF_PIX_FMT_UNKNOWN;
    const int sub_w = pix_fmt == VMAF_PIX_FMT_YUV420P || pix_fmt == VMAF_PIX_FMT_YUV422P;
    const int sub_h = pix_fmt == VMAF_PIX_FMT_YUV420P;
    const int planes = pix_fmt == VMAF_PIX_FMT_YUV400P ? 1 : 3;

    VmafContext *vmaf;
    int err = vmaf_init(&vmaf, cfg);
    if (err) die("vmaf_init", err);

    for (int k = 0; k < n_models; k++) {
        struct model_arg *m = &models[k];
        VmafModelConfig mc = {.name = m->name, .flags = VMAF_MODEL_FLAGS_DEFAULT};
        const int by_version = !strcmp(m->kind, "version");
        if (m->collection) {
            err = by_version ? vmaf_model_collection_load(&m->model, &m->members, &mc, m->arg)
                             : vmaf_model_collection_load_from_path(&m->model, &m->members, &mc, m->arg);
            if (err) die("vmaf_model_collection_load", err);
            /* As libvmaf's CLI: the members' features serve the main model. */
            err = vmaf_use_features_from_model_collection(vmaf, m->members);
            if (err) die("vmaf_use_features_from_model_collection", err);
            continue;
        }
        err = by_version ? vmaf_model_load(&m->model, &mc, m->arg) : vmaf_model_load_from_path(&m->model, &mc, m->arg);
        if (err) die("vmaf_model_load", err);
        err = vmaf_use_features_from_model(vmaf, m->model);
        if (err) die("vmaf_use_features_from_model", err);
    }
    for (int k = 0; k < n_features; k++) use_feature(vmaf, features[k]);

    if (prealloc) {
        VmafPictureConfiguration pc = {
            .pic_params = {.w = w, .h = h, .bpc = bpc, .pix_fmt = pix_fmt},
            .pic_cnt = 3, /* libvmaf keeps the two previous references */
        };
        err = vmaf_preallocate_pictures(vmaf, pc);
        if (err) die("vmaf_preallocate_pictures", err);
    }

    FILE *fr = fopen(ref_path, "rb"), *fd = fopen(dis_path, "rb");
    if (!fr || !fd) die("fopen", -errno);
    unsigned n = 0;
    for (; n < max_frames; n++) {
        VmafPicture ref, dis;
        err = prealloc ? vmaf_fetch_preallocated_picture(vmaf, &ref)
                       : vmaf_picture_alloc(&ref, pix_fmt, bpc, w, h);
        if (err) die("vmaf_picture_alloc (reference)", err);
        err = vmaf_picture_alloc(&dis, pix_fmt, bpc, w, h);
        if (err) die("vmaf_picture_alloc", err);
        if (!read_frame(fr, &ref, w, h, sub_w, sub_h, planes) || !read_frame(fd, &dis, w, h, sub_w, sub_h, planes)) {
            vmaf_picture_unref(&ref);
            vmaf_picture_unref(&dis);
            break;
        }
        err = vmaf_read_pictures(vmaf, &ref, &dis, n);
        if (err) die("vmaf_read_pictures", err);
    }
    fclose(fr);
    fclose(fd);
    err = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    if (err) die("vmaf_read_pictures (flush)", err);
    printf("frames %u\n", n);
    if (!n) return 1;

    static const char *const methods[] = {"", "min", "max", "mean", "harmonic_mean"};
    for (int k = 0; k < n_models; k++) {
        struct model_arg *m = &models[k];
        for (unsigned f = 0; f < n; f++) {
            double s = 0;
            err = vmaf_score_at_index(vmaf, m->model, &s, f);
            printf("model %s %u", m->name, f);
            print_value(err, s);
            printf("\n");
        }
        for (int p = VMAF_POOL_METHOD_MIN; p < VMAF_POOL_METHOD_NB; p++) {
            double s = 0;
            err = vmaf_score_pooled(vmaf, m->model, (enum VmafPoolingMethod)p, &s, 0, n - 1);
            printf("model_pooled %s %s", m->name, methods[p]);
            print_value(err, s);
            printf("\n");
        }
    }
    /* Collections after all models, as libvmaf's CLI scores them. */
    for (int k = 0; k < n_models; k++) {
        struct model_arg *m = &models[k];
        if (!m->collection) continue;
        /* One call, as libvmaf's CLI makes it: libvmaf stores the members'
         * scores and statistics once per index and fails a second call. Read
         * the stored series with -q NAME_bagging, NAME_stddev, ... */
        VmafModelCollectionScore s = {0};
        err = vmaf_score_pooled_model_collection(vmaf, m->members, VMAF_POOL_METHOD_MEAN, &s, 0, n - 1);
        printf("collection_pooled %s mean", m->name);
        print_value(err, s.bootstrap.bagging_score);
        print_value(err, s.bootstrap.stddev);
        print_value(err, s.bootstrap.ci.p95.lo);
        print_value(err, s.bootstrap.ci.p95.hi);
        printf("\n");
    }
    for (int q = 0; q < n_queries; q++) {
        for (unsigned f = 0; f < n; f++) {
            double s = 0;
            err = vmaf_feature_score_at_index(vmaf, queries[q], &s, f);
            printf("feature %s %u", queries[q], f);
            print_value(err, s);
            printf("\n");
        }
        for (int p = VMAF_POOL_METHOD_MIN; p < VMAF_POOL_METHOD_NB; p++) {
            double s = 0;
            err = vmaf_feature_score_pooled(vmaf, queries[q], (enum VmafPoolingMethod)p, &s, 0, n - 1);
            printf("pooled %s %s", queries[q], methods[p]);
            print_value(err, s);
            printf("\n");
        }
    }

    if (out) {
        static const char *const ext[] = {"", "xml", "json", "csv", "sub"};
        for (int fmt = VMAF_OUTPUT_FORMAT_XML; fmt <= VMAF_OUTPUT_FORMAT_SUB; fmt++) {
            char path[1024];
            snprintf(path, sizeof path, "%s.%s", out, ext[fmt]);
            err = vmaf_write_output(vmaf, path, (enum VmafOutputFormat)fmt);
            if (err) die("vmaf_write_output", err);
        }
    }

    for (int k = 0; k < n_models; k++) {
        vmaf_model_destroy(models[k].model);
        if (models[k].collection) vmaf_model_collection_destroy(models[k].members);
    }
    err = vmaf_close(vmaf);
    if (err) die("vmaf_close", err);
    return 0;
}
