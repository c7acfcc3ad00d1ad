// Output files appear whole or not at all. The text goes to a temporary file
// beside the target (".NAME.twinmaf-PID-N", created with the mode a new file
// would get, or the mode of the file it replaces), which is renamed over the
// target once written and closed: a reader never sees a partial file, and a
// failed write leaves the target as it was. Standard output ("-") and
// existing files that are not regular (/dev/null, /dev/stdout, a FIFO) are
// written in place.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace twinmaf {

// A written, not yet renamed, output. Destroyed uncommitted, it removes its
// temporary file.
class StagedFile {
 public:
  // Writes `text` for `path`; errors name the path and the system's reason.
  static Result<StagedFile> stage(const std::string& path, std::string_view text);
  StagedFile(StagedFile&& other) noexcept;
  StagedFile& operator=(StagedFile&&) = delete;
  ~StagedFile();
  // Puts the text at its path.
  Status commit();

 private:
  StagedFile(std::string path, std::string temp) : path_(std::move(path)), temp_(std::move(temp)) {}
  std::string path_;
  std::string temp_;  // empty: written in place, or committed
};

// stage() and commit().
Status write_whole_file(const std::string& path, std::string_view text);

}  // namespace twinmaf
