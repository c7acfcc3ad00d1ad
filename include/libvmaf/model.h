/*
 * libvmaf-compatible C API of twinmaf: VMAF models and bootstrap model
 * collections.
 *
 * Declarations follow libvmaf 3.2 (same names, types, values and layout); the
 * text is twinmaf's. See docs/capi.md.
 */
#ifndef __VMAF_MODEL_H__
#define __VMAF_MODEL_H__

#include <stdint.h>

#include "feature.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A loaded model (opaque). */
typedef struct VmafModel VmafModel;

enum VmafModelFlags {
    VMAF_MODEL_FLAGS_DEFAULT = 0,
    VMAF_MODEL_FLAG_DISABLE_CLIP = (1 << 0),
    VMAF_MODEL_FLAG_ENABLE_TRANSFORM = (1 << 1),
    VMAF_MODEL_FLAG_DISABLE_TRANSFORM = (1 << 2),
};

/*
 * name:  the metric the model's scores are stored (and written) under;
 *        NULL means "vmaf".
 * flags: VmafModelFlags; DISABLE_CLIP and ENABLE_TRANSFORM act at load.
 */
typedef struct VmafModelConfig {
    const char *name;
    uint64_t flags;
} VmafModelConfig;

/**
 * Loads a built-in model by version ("vmaf_v0.6.1", "vmaf_4k_v0.6.1",
 * "vmaf_v1.0.16_3d0h", ...).
 *
 * @return 0; -EINVAL if an argument is NULL, the version is unknown or names
 *         a collection; -ENOMEM.
 */
int vmaf_model_load(VmafModel **model, VmafModelConfig *cfg,
                    const char *version);

/**
 * Loads a model from a JSON model file (.pkl files are refused).
 *
 * @return 0; -EINVAL if an argument is NULL or the file is not a readable
 *         model; -ENOMEM.
 */
int vmaf_model_load_from_path(VmafModel **model, VmafModelConfig *cfg,
                              const char *path);

/**
 * Merges opts_dict into the options of every model feature computed by the
 * feature extractor named feature_name (e.g. "adm"), and frees opts_dict.
 *
 * @return 0; -EINVAL if an argument is NULL (opts_dict is then left to the
 *         caller).
 */
int vmaf_model_feature_overload(VmafModel *model, const char *feature_name,
                                VmafFeatureDictionary *opts_dict);

/* Frees a model (NULL is ignored). */
void vmaf_model_destroy(VmafModel *model);

/* The members of a bootstrap model collection (opaque). */
typedef struct VmafModelCollection VmafModelCollection;

enum VmafModelCollectionScoreType {
    VMAF_MODEL_COLLECTION_SCORE_UNKNOWN = 0,
    VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP,
};

/* Bootstrap statistics of a collection's member scores. */
typedef struct VmafModelCollectionScore {
    enum VmafModelCollectionScoreType type;
    struct {
        double bagging_score;
        double stddev;
        struct {
            struct { double lo, hi; } p95;
        } ci;
    } bootstrap;
} VmafModelCollectionScore;

/**
 * Loads a built-in bootstrap collection by version ("vmaf_b_v0.6.3"): *model
 * gets its main model (scored under cfg->name), *model_collection its members
 * (scored under "<name>_0001", ...; statistics under "<name>_bagging",
 * "<name>_stddev", "<name>_ci_p95_lo", "<name>_ci_p95_hi").
 *
 * @return 0; -EINVAL if an argument is NULL or the version is not a
 *         collection; -ENOMEM.
 */
int vmaf_model_collection_load(VmafModel **model,
                               VmafModelCollection **model_collection,
                               VmafModelConfig *cfg,
                               const char *version);

/**
 * vmaf_model_collection_load() from a JSON collection file.
 *
 * @return as vmaf_model_collection_load().
 */
int vmaf_model_collection_load_from_path(VmafModel **model,
                                         VmafModelCollection **model_collection,
                                         VmafModelConfig *cfg,
                                         const char *path);

/**
 * vmaf_model_feature_overload() on every member of *model_collection and on
 * model; frees opts_dict.
 *
 * @return 0; -EINVAL if model_collection, *model_collection, model,
 *         feature_name or opts_dict is NULL (opts_dict is then left to the
 *         caller).
 */
int vmaf_model_collection_feature_overload(VmafModel *model,
                                           VmafModelCollection **model_collection,
                                           const char *feature_name,
                                           VmafFeatureDictionary *opts_dict);

/* Frees a collection's members (NULL is ignored). */
void vmaf_model_collection_destroy(VmafModelCollection *model_collection);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_MODEL_H__ */
