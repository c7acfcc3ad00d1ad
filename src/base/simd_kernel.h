// The frame every Highway kernel source (src/features/<feat>/<feat>_simd.cpp)
// shares: foreach_target compiles the file once per target, and these macros
// open and close that target's namespace and say whether it compiles kernels.
//
//   #undef HWY_TARGET_INCLUDE
//   #define HWY_TARGET_INCLUDE "features/<feat>/<feat>_simd.cpp"
//   #include <hwy/foreach_target.h>  // IWYU pragma: keep
//   #include <hwy/highway.h>
//
//   #include "base/simd_kernel.h"
//   ...
//   TWINMAF_SIMD_BEGIN            // twinmaf::HWY_NAMESPACE, hn, the target's attributes
//   #if TWINMAF_SIMD_KERNELS
//   ... the kernels ...
//   #endif
//   R Kernel(args) {              // what HWY_EXPORT exports, on every target
//   #if !TWINMAF_SIMD_KERNELS
//     return <feat>_<stage>_ref(args);   // the scalar shim
//   #else
//     ...
//   #endif
//   }
//   TWINMAF_SIMD_END
//
//   #if HWY_ONCE                  // once: the entries and the table
//   namespace twinmaf {
//   HWY_EXPORT(Kernel);
//   R <feat>_<stage>_simd(args) { return HWY_DYNAMIC_DISPATCH(Kernel)(args); }
//   const <Feat>Dsp& <feat>_dsp_simd();   // the table of the _simd entries
//   void <feat>_dsp_init(<Feat>Dsp& dsp); // the reference table, upgraded when simd_enabled()
//   }  // namespace twinmaf
//   #endif
//
// Included in every pass; defines macros only.
#pragma once

// Opens the current target's namespace (twinmaf::HWY_NAMESPACE, with hn =
// hwy::HWY_NAMESPACE) and its code-generation attributes. The attribute
// pragmas come last in each macro: GCC 14 drops the tokens that follow a
// _Pragma("GCC target") in one macro expansion (Debian 13's g++ 14.2).
#define TWINMAF_SIMD_BEGIN             \
  namespace twinmaf {                  \
  namespace HWY_NAMESPACE {            \
  namespace hn = hwy::HWY_NAMESPACE;   \
  HWY_BEFORE_NAMESPACE();

// Closes what TWINMAF_SIMD_BEGIN opened.
#define TWINMAF_SIMD_END           \
  } /* namespace HWY_NAMESPACE */ \
  } /* namespace twinmaf */       \
  HWY_AFTER_NAMESPACE();

// Whether this target compiles the SIMD kernels. HWY_SCALAR (one lane, the
// x86-64 static target) is never dispatched to while simd_enabled()
// (base/simd.h: the tables hold the references then); its exported
// functions run the reference.
#define TWINMAF_SIMD_KERNELS (HWY_TARGET != HWY_SCALAR)
