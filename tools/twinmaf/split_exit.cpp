#include "tools/twinmaf/split_exit.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>

namespace twinmaf::cli {

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(undefined_behavior_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

int g_report_fd = -1;  // the child's end of the pipe; -1 in an unsplit process

[[noreturn]] void mirror_child(pid_t child) {
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    std::signal(WTERMSIG(status), SIG_DFL);
    std::raise(WTERMSIG(status));
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

}  // namespace

bool may_use_gpu(const CliRequest& req) {
  if (!TWINMAF_HAVE_CUDA || kSanitized || access("/dev/nvidiactl", F_OK) != 0) return false;
  const auto gpu = [](Backend b) { return b != Backend::kCpu; };
  return gpu(req.config.backend) || std::any_of(req.config.feature_backends.begin(), req.config.feature_backends.end(),
                                                [&](const auto& fb) { return gpu(fb.second); });
}

void split_exit() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return;
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    return;
  }
  if (child == 0) {
    close(fds[0]);
    // A parent gone before the death signal was armed has no one to report to.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(1);
    g_report_fd = fds[1];
    return;
  }
  close(fds[1]);
  unsigned char code = 0;
  ssize_t n;
  while ((n = read(fds[0], &code, 1)) < 0 && errno == EINTR) {
  }
  if (n == 1) _exit(code);
  mirror_child(child);
}

void report_exit(int code) {
  if (g_report_fd < 0) return;
  std::fflush(nullptr);
  // The caller may read our stdout/stderr until every writer has closed them.
  if (const int null = open("/dev/null", O_RDWR); null >= 0) {
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    close(null);
  }
  const auto byte = static_cast<unsigned char>(code);
  while (write(g_report_fd, &byte, 1) < 0 && errno == EINTR) {
  }
  _exit(code);
}

}  // namespace twinmaf::cli
