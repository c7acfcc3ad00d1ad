// Logging and error returns of the C API: libvmaf's process-wide level, one
// line per message on stderr ("libvmaf ERROR <message>").
#include <cstdio>

#include "capi/capi.h"

namespace twinmaf::capi {

namespace {

std::atomic<int> g_level{VMAF_LOG_LEVEL_INFO};

}  // namespace

void set_log_level(VmafLogLevel level) {
  int l = level;
  if (l < VMAF_LOG_LEVEL_NONE) l = VMAF_LOG_LEVEL_NONE;
  if (l > VMAF_LOG_LEVEL_DEBUG) l = VMAF_LOG_LEVEL_DEBUG;
  g_level.store(l);
}

void log(VmafLogLevel level, std::string_view message) {
  static const char* const kNames[] = {"", "ERROR", "WARNING", "INFO", "DEBUG"};
  if (level <= VMAF_LOG_LEVEL_NONE || level > VMAF_LOG_LEVEL_DEBUG || level > g_level.load()) return;
  std::fprintf(stderr, "libvmaf %s %.*s\n", kNames[level], static_cast<int>(message.size()), message.data());
}

int fail(std::string_view where, std::string_view message) {
  log(VMAF_LOG_LEVEL_ERROR, std::string(where) + ": " + std::string(message));
  return -EINVAL;
}

int fail(std::string_view where, const Status& status) { return fail(where, status.message()); }

}  // namespace twinmaf::capi
