/*
 * libvmaf-compatible C API of twinmaf: feature option dictionaries.
 *
 * Declarations follow libvmaf 3.2 (same names, types and semantics); the
 * text is twinmaf's. See docs/capi.md.
 */
#ifndef __VMAF_FEATURE_H__
#define __VMAF_FEATURE_H__

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque key -> value list of feature extractor options. A NULL pointer is
 * the empty dictionary. */
typedef struct VmafFeatureDictionary VmafFeatureDictionary;

/**
 * Sets option `key` to `val` in *dict, allocating the dictionary when *dict
 * is NULL. A value that reads as one number is stored normalised (single
 * precision, printed with "%g": "1.0" is stored as "1"); an existing key is
 * overwritten.
 *
 * @return 0, -EINVAL if dict, key or val is NULL, -ENOMEM.
 */
int vmaf_feature_dictionary_set(VmafFeatureDictionary **dict, const char *key,
                                const char *val);

/**
 * Frees *dict and sets it to NULL (a NULL *dict is left as it is).
 *
 * @return 0, -EINVAL if dict is NULL.
 */
int vmaf_feature_dictionary_free(VmafFeatureDictionary **dict);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_FEATURE_H__ */
