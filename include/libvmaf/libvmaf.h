/*
 * libvmaf-compatible C API of twinmaf: a VMAF context scores pairs of
 * pictures with the features of registered models and extractors, then
 * predicts, pools and writes libvmaf's result files. Every value equals
 * libvmaf 3.2's (f85a8536).
 *
 * Declarations follow libvmaf 3.2 (same names, types, values and layout); the
 * text is twinmaf's. Where twinmaf behaves differently on purpose, and how,
 * is in docs/capi.md.
 *
 *   VmafContext *vmaf;
 *   vmaf_init(&vmaf, (VmafConfiguration){.log_level = VMAF_LOG_LEVEL_INFO});
 *   VmafModel *model;
 *   vmaf_model_load(&model, &(VmafModelConfig){.name = "vmaf"}, "vmaf_v0.6.1");
 *   vmaf_use_features_from_model(vmaf, model);
 *   for (unsigned i = 0; i < n; i++) {          // pictures in index order
 *       VmafPicture ref, dist;                  // vmaf_picture_alloc, fill
 *       vmaf_read_pictures(vmaf, &ref, &dist, i);  // takes both pictures
 *   }
 *   vmaf_read_pictures(vmaf, NULL, NULL, 0);    // flush
 *   double score;
 *   vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &score, 0, n - 1);
 *   vmaf_write_output(vmaf, "out.json", VMAF_OUTPUT_FORMAT_JSON);
 *   vmaf_model_destroy(model);
 *   vmaf_close(vmaf);
 *
 * Every int function returns 0 on success or a negative errno value;
 * messages go to stderr at the configured log level. Calls on one context
 * are not made from several threads at once.
 */
#ifndef __VMAF_H__
#define __VMAF_H__

#include <stdint.h>
#include <stdio.h>

#include "libvmaf/model.h"
#include "libvmaf/picture.h"
#include "libvmaf/feature.h"

#ifdef __cplusplus
extern "C" {
#endif

enum VmafLogLevel {
    VMAF_LOG_LEVEL_NONE = 0,
    VMAF_LOG_LEVEL_ERROR,
    VMAF_LOG_LEVEL_WARNING,
    VMAF_LOG_LEVEL_INFO,
    VMAF_LOG_LEVEL_DEBUG,
};

enum VmafOutputFormat {
    VMAF_OUTPUT_FORMAT_NONE = 0,
    VMAF_OUTPUT_FORMAT_XML,
    VMAF_OUTPUT_FORMAT_JSON,
    VMAF_OUTPUT_FORMAT_CSV,
    VMAF_OUTPUT_FORMAT_SUB,
};

enum VmafPoolingMethod {
    VMAF_POOL_METHOD_UNKNOWN = 0,
    VMAF_POOL_METHOD_MIN,
    VMAF_POOL_METHOD_MAX,
    VMAF_POOL_METHOD_MEAN,
    VMAF_POOL_METHOD_HARMONIC_MEAN,
    VMAF_POOL_METHOD_NB
};

/*
 * log_level:   messages up to this level go to stderr (process-wide, as in
 *              libvmaf: the last vmaf_init() sets it).
 * n_threads:   worker threads; 0 scores on one thread.
 * n_subsample: score every Nth picture only (0 and 1: every picture);
 *              temporal features still see every picture.
 * cpumask:     accepted and ignored: twinmaf's CPU results do not depend on
 *              the instruction set.
 * gpumask:     non-zero keeps every feature on the CPU even with an imported
 *              CUDA state.
 */
typedef struct VmafConfiguration {
    enum VmafLogLevel log_level;
    unsigned n_threads;
    unsigned n_subsample;
    uint64_t cpumask;
    uint64_t gpumask;
} VmafConfiguration;

/* A scoring context (opaque). */
typedef struct VmafContext VmafContext;

/**
 * Creates a context in *vmaf, to be freed with vmaf_close().
 *
 * @return 0; -EINVAL if vmaf is NULL or n_threads is above 1024; -ENOMEM.
 */
int vmaf_init(VmafContext **vmaf, VmafConfiguration cfg);

/**
 * Registers the feature extractors a model needs, with the model's options.
 * Extractors registered more than once with the same options (by several
 * models, or by models and vmaf_use_feature()) run once. Registration ends
 * with the first vmaf_read_pictures().
 *
 * @return 0; -EINVAL if an argument is NULL, the model needs a feature no
 *         extractor computes, an option is invalid, or pictures were read.
 */
int vmaf_use_features_from_model(VmafContext *vmaf, VmafModel *model);

/**
 * vmaf_use_features_from_model() for the members of a collection.
 *
 * @return as vmaf_use_features_from_model().
 */
int vmaf_use_features_from_model_collection(VmafContext *vmaf,
                                            VmafModelCollection *model_collection);

/**
 * Registers the feature extractor named feature_name ("psnr", "float_ssim",
 * "cambi", ...) with the options in opts_dict (NULL: defaults). A known
 * extractor consumes opts_dict, also when it refuses an option; with an
 * unknown name the caller still owns it.
 *
 * @return 0; -EINVAL if vmaf or feature_name is NULL, the extractor is
 *         unknown, an option is unknown or invalid, or pictures were read.
 */
int vmaf_use_feature(VmafContext *vmaf, const char *feature_name,
                     VmafFeatureDictionary *opts_dict);

/**
 * Stores a score computed elsewhere under feature_name at picture index,
 * where models and pooling find it like a computed one. Imported while
 * pictures are being scored, it is stored at the flush.
 *
 * @return 0; -EINVAL if vmaf or feature_name is NULL or the index already
 *         holds a value of that name.
 */
int vmaf_import_feature_score(VmafContext *vmaf, const char *feature_name,
                              double value, unsigned index);

/**
 * Queues a pair of pictures for scoring; index counts the pairs read from 0.
 * On success the context owns both pictures (they are released, returning
 * preallocated ones to their pool); on failure the caller still owns them.
 * The first pair fixes the size, pixel format and bit depth of all others.
 * With ref and dist both NULL, flushes: waits for every pair to be scored
 * and completes the temporal features; scores are readable after it.
 *
 * @return 0; -EINVAL if vmaf is NULL, only one picture is NULL, a picture
 *         was not allocated by this library or differs in size, format or
 *         depth, index is not the number of pairs read so far, the context
 *         was flushed, a sample is above the bit depth, or scoring failed
 *         (also reported by a later call or the flush).
 */
int vmaf_read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist,
                       unsigned index);

/**
 * The model's score at picture index: the one stored under the model's name,
 * else predicted from the stored features and stored (and so written by
 * vmaf_write_output()). Between the first vmaf_read_pictures() and the flush
 * no score is readable.
 *
 * @return 0; -EINVAL if an argument is NULL, a feature the model needs has
 *         no value at index, or pictures are being scored.
 */
int vmaf_score_at_index(VmafContext *vmaf, VmafModel *model, double *score,
                        unsigned index);

/**
 * Bootstrap statistics of a collection's members at picture index; the
 * members' scores and the statistics are stored.
 *
 * @return as vmaf_score_at_index().
 */
int vmaf_score_at_index_model_collection(VmafContext *vmaf,
                                         VmafModelCollection *model_collection,
                                         VmafModelCollectionScore *score,
                                         unsigned index);

/**
 * The value stored under feature_name at picture index. Names are the
 * stored ones ("VMAF_integer_feature_adm2_score", "psnr_y", a model's name),
 * not the shorter names result files print ("integer_adm2").
 *
 * @return 0; -EINVAL if an argument is NULL, nothing is stored under that
 *         name at index, or pictures are being scored.
 */
int vmaf_feature_score_at_index(VmafContext *vmaf, const char *feature_name,
                                double *score, unsigned index);

/**
 * Scores the model at every picture index_low..index_high (those n_subsample
 * skips left out), then pools them: mean, minimum, maximum, or harmonic mean
 * n / sum(1 / (s + 1)) - 1, in double, indices in increasing order.
 *
 * @return 0; -EINVAL if an argument is NULL, pool_method is not one of the
 *         four, index_low > index_high, or a score is missing.
 */
int vmaf_score_pooled(VmafContext *vmaf, VmafModel *model,
                      enum VmafPoolingMethod pool_method, double *score,
                      unsigned index_low, unsigned index_high);

/**
 * vmaf_score_pooled() for a collection: each statistic pooled.
 *
 * @return as vmaf_score_pooled().
 */
int vmaf_score_pooled_model_collection(VmafContext *vmaf,
                                       VmafModelCollection *model_collection,
                                       enum VmafPoolingMethod pool_method,
                                       VmafModelCollectionScore *score,
                                       unsigned index_low, unsigned index_high);

/**
 * vmaf_score_pooled() of the values stored under feature_name.
 *
 * @return as vmaf_score_pooled().
 */
int vmaf_feature_score_pooled(VmafContext *vmaf, const char *feature_name,
                              enum VmafPoolingMethod pool_method, double *score,
                              unsigned index_low, unsigned index_high);

/* A picture pool: pic_cnt pictures of one size, format and depth. */
typedef struct VmafPictureConfiguration {
    struct {
        unsigned w, h;
        unsigned bpc;
        enum VmafPixelFormat pix_fmt;
    } pic_params;
    unsigned pic_cnt;
} VmafPictureConfiguration;

/**
 * Allocates the context's picture pool, once. Pictures fetched from it go
 * back to it when their last reference is dropped (vmaf_read_pictures() or
 * vmaf_picture_unref()).
 *
 * @return 0; -EINVAL if vmaf is NULL, pic_cnt is 0, the picture parameters
 *         are invalid (as vmaf_picture_alloc()), or the pool exists; -ENOMEM.
 */
int vmaf_preallocate_pictures(VmafContext *vmaf,
                              VmafPictureConfiguration cfg);

/**
 * Takes a picture from the pool, waiting while all are in use. Its samples
 * are what its last user left.
 *
 * @return 0; -EINVAL if vmaf or pic is NULL or the context has no pool.
 */
int vmaf_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic);

/**
 * Frees the context (pictures still fetched from its pool stay valid until
 * unreferenced).
 *
 * @return 0, -EINVAL if vmaf is NULL or not an open context.
 */
int vmaf_close(VmafContext *vmaf);

/**
 * Writes libvmaf's result file: every stored score per picture, pooled
 * values over the pictures read, aggregates (e.g. apsnr_y).
 *
 * @return 0; -EINVAL if vmaf or output_path is NULL, fmt is not one of the
 *         four formats, the file cannot be written, or pictures are being
 *         scored.
 */
int vmaf_write_output(VmafContext *vmaf, const char *output_path,
                      enum VmafOutputFormat fmt);

/* twinmaf's version, e.g. "twinmaf-0.1.0" (the libvmaf API it provides is
 * in libvmaf/version.h). */
const char *vmaf_version(void);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_H__ */
