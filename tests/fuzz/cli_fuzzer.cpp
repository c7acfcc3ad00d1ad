// Fuzzes what a user types: NUL-separated command-line arguments through the
// CLI's parser, and each argument as a --model text, a --feature text (its
// options parsed against the feature's table) and a --backend list. Parsing
// only: nothing is scored. Any text must parse or give a Status.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "api/feature_text.h"
#include "features/feature.h"
#include "model/model.h"
#include "tools/twinmaf/args.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace twinmaf;
  std::vector<std::string> args{"twinmaf"};
  std::string cur;
  for (size_t i = 0; i < size && args.size() < 64; ++i) {
    if (data[i] == 0) {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[i]));
    }
  }
  args.push_back(cur);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  (void)parse_cli(static_cast<int>(args.size()), argv.data());
  for (size_t k = 1; k < args.size(); ++k) {
    (void)parse_model_request(args[k]);
    (void)parse_backend_choice(args[k]);
    (void)parse_scaling(args[k]);
    auto f = parse_feature_text(args[k]);
    if (!f.ok()) continue;
    if (const FeatureSpec* spec = find_feature(f->name)) (void)Options::parse(spec->name, spec->options, f->options);
  }
  return 0;
}
