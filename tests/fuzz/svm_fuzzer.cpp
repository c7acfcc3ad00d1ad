// Fuzzes libsvm model text (the "model" string of a VMAF JSON model): parsed,
// then predicted on inputs of every length up to the largest index.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "model/svm.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace twinmaf;
  auto svm = SvmModel::parse(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!svm.ok()) return 0;
  std::vector<double> x;
  for (int n = 0; n <= svm->max_index() && n <= 64; ++n) {
    (void)svm->predict(x);
    x.push_back(0.5 + n);
  }
  return 0;
}
