#include "io/ffmpeg_api.h"

#include <dlfcn.h>


namespace twinmaf {

namespace {

#define TWINMAF_STR2(x) #x
#define TWINMAF_STR(x) TWINMAF_STR2(x)

struct Loaded {
  FfmpegApi api;
  Status status;
};

Loaded load() {
  Loaded l;
  // Dependencies first: each library's NEEDED entries then resolve to the
  // ones already loaded.
  struct Library {
    const char* soname;
    void* handle;
  };
  Library avutil{"libavutil.so." TWINMAF_STR(LIBAVUTIL_VERSION_MAJOR), nullptr};
  Library swscale{"libswscale.so." TWINMAF_STR(LIBSWSCALE_VERSION_MAJOR), nullptr};
  Library avcodec{"libavcodec.so." TWINMAF_STR(LIBAVCODEC_VERSION_MAJOR), nullptr};
  Library avformat{"libavformat.so." TWINMAF_STR(LIBAVFORMAT_VERSION_MAJOR), nullptr};
  for (Library* lib : {&avutil, &swscale, &avcodec, &avformat}) {
    lib->handle = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib->handle) {
      const char* why = dlerror();
      l.status = make_error(Code::kUnsupported, "cannot load FFmpeg's {}: {}", lib->soname, why ? why : "unknown error");
      return l;
    }
  }
#define TWINMAF_FFMPEG_RESOLVE(lib, fn)                                                                    \
  l.api.fn = reinterpret_cast<decltype(&::fn)>(dlsym(lib.handle, #fn));                                    \
  if (!l.api.fn) {                                                                                         \
    l.status = make_error(Code::kUnsupported, "FFmpeg's {} lacks {}", lib.soname, #fn);                     \
    return l;                                                                                              \
  }
  TWINMAF_FFMPEG_FUNCTIONS(TWINMAF_FFMPEG_RESOLVE)
#undef TWINMAF_FFMPEG_RESOLVE
  return l;
}

}  // namespace

Result<const FfmpegApi*> ffmpeg_api() {
  static const Loaded loaded = load();
  if (!loaded.status.ok()) return loaded.status;
  return &loaded.api;
}

}  // namespace twinmaf
