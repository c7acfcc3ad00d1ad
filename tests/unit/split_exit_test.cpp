// tools/twinmaf/split_exit.h: the process the caller waits for ends with the
// job's code once the job reports, mirrors a job that dies without
// reporting, and takes the job down when it is killed itself.
#include "tools/twinmaf/split_exit.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

namespace twinmaf::cli {
namespace {

TEST(SplitExitDeathTest, ExitsWithTheReportedCodeAfterTheJobsOutput) {
  EXPECT_EXIT(
      {
        split_exit();
        std::fprintf(stderr, "job output from %d\n", int(getpid()));
        report_exit(3);
        std::abort();  // unreachable: report_exit ends the job
      },
      testing::ExitedWithCode(3), "job output from");
}

TEST(SplitExitDeathTest, MirrorsAJobThatExitsWithoutReporting) {
  EXPECT_EXIT(
      {
        split_exit();
        _exit(7);
      },
      testing::ExitedWithCode(7), "");
}

TEST(SplitExitDeathTest, MirrorsAJobKilledBySignal) {
  EXPECT_EXIT(
      {
        split_exit();
        std::signal(SIGABRT, SIG_DFL);
        std::abort();
      },
      testing::KilledBySignal(SIGABRT), "");
}

TEST(SplitExitDeathTest, ReportingOutsideASplitProcessReturns) {
  EXPECT_EXIT(
      {
        report_exit(5);
        std::fprintf(stderr, "still running\n");
        _exit(0);
      },
      testing::ExitedWithCode(0), "still running");
}

// The job dies with the process its caller started: the parent is killed
// while the job runs; the job (its pid written to a file first) must be gone.
TEST(SplitExitDeathTest, TheJobDiesWithItsParent) {
  const std::string pid_file = testing::TempDir() + "split_exit_job_pid";
  std::remove(pid_file.c_str());
  EXPECT_EXIT(
      {
        split_exit();
        std::ofstream(pid_file) << getpid() << "\n";
        kill(getppid(), SIGKILL);
        sleep(30);  // killed by the death signal long before
        _exit(0);
      },
      testing::KilledBySignal(SIGKILL), "");
  int job = 0;
  std::ifstream(pid_file) >> job;
  ASSERT_GT(job, 0);
  // Gone, or a zombie waiting for its new parent to reap it.
  const auto running = [job] {
    std::ifstream stat("/proc/" + std::to_string(job) + "/stat");
    std::string pid, name, state;
    return stat >> pid >> name >> state && state != "Z" && state != "X";
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (running() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(running()) << "job " << job << " outlived its parent";
  std::remove(pid_file.c_str());
}

}  // namespace
}  // namespace twinmaf::cli
