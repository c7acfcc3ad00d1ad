// Output files whole or not at all (output/file_output.h).
#include "output/file_output.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace twinmaf {
namespace {

namespace fs = std::filesystem;

class FileOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("twinmaf_file_output_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  size_t entries() const { return size_t(std::distance(fs::directory_iterator(dir_), fs::directory_iterator())); }
  fs::path dir_;
};

TEST_F(FileOutput, WritesWholeAndLeavesNoTemporaryFile) {
  ASSERT_TRUE(write_whole_file(path("a.json"), "{}\n").ok());
  EXPECT_EQ(read(path("a.json")), "{}\n");
  EXPECT_EQ(entries(), 1u);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(fs::status(path("a.json")).permissions(), fs::perms(0666 & ~mask));
}

TEST_F(FileOutput, ReplacesAFileKeepingItsMode) {
  ASSERT_TRUE(write_whole_file(path("a.xml"), "old").ok());
  ASSERT_EQ(::chmod(path("a.xml").c_str(), 0640), 0);
  ASSERT_TRUE(write_whole_file(path("a.xml"), "new text").ok());
  EXPECT_EQ(read(path("a.xml")), "new text");
  EXPECT_EQ(fs::status(path("a.xml")).permissions(), fs::perms(0640));
  EXPECT_EQ(entries(), 1u);
}

TEST_F(FileOutput, AFailedWriteLeavesTheFileAsItWas) {
  ASSERT_TRUE(write_whole_file(path("a.csv"), "old").ok());
  // A file size limit makes the write fail midway (EFBIG, SIGXFSZ ignored).
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const Status st = write_whole_file(path("a.csv"), std::string(100000, 'x'));
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("a.csv: write failed: File too large"), std::string::npos) << st.message();
  EXPECT_EQ(read(path("a.csv")), "old");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(FileOutput, AnUncommittedFileIsRemoved) {
  {
    auto f = StagedFile::stage(path("b.json"), "text");
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(entries(), 1u);  // the temporary file
    EXPECT_FALSE(fs::exists(path("b.json")));
  }
  EXPECT_EQ(entries(), 0u);
}

TEST_F(FileOutput, DevicesAreWrittenInPlace) {
  EXPECT_TRUE(write_whole_file("/dev/null", "text").ok());
  const Status full = write_whole_file("/dev/full", "text");
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.message(), "/dev/full: write failed: No space left on device");
  const Status missing = write_whole_file(path("no/such/dir.json"), "text");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("No such file or directory"), std::string::npos) << missing.message();
}

}  // namespace
}  // namespace twinmaf
