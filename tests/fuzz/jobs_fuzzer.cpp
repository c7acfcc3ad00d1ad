// Fuzzes --batch's job parser: bytes as a jobs file (JSON lines of flags)
// over defaults given beside --batch. Parsing and the checks before scoring
// only: nothing is scored or written. Every line must become a job or one
// error line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tools/twinmaf/batch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace twinmaf;
  static const std::vector<CliFlag> defaults = {{"json", std::nullopt}, {"model", "version=vmaf_v0.6.1"},
                                                {"threads", "2"}};
  const std::vector<cli::BatchJob> jobs =
      cli::parse_jobs(std::string_view(reinterpret_cast<const char*>(data), size), defaults, size % 2 == 1);
  for (const cli::BatchJob& j : jobs)
    if (!j.status.ok() && j.status.message().empty()) __builtin_trap();  // an error names its reason
  return 0;
}
