#include "base/trace.h"

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <sstream>

#include <fmt/format.h>

namespace twinmaf::trace {

namespace {

using Clock = std::chrono::steady_clock;

const Clock::time_point g_origin = Clock::now();

struct Step {
  std::string name;
  double ms;
};

std::atomic<bool> g_enabled{false};
std::mutex g_mutex;
std::vector<Step> g_steps;

double ms_since_origin() { return std::chrono::duration<double, std::milli>(Clock::now() - g_origin).count(); }

// exec -> now, from the process's start time in /proc/self/stat (clock
// ticks since boot) and CLOCK_BOOTTIME; negative when unavailable.
double ms_since_exec() {
  std::ifstream f("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream rest(stat.substr(paren + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i != 22) continue;
    timespec now{};
    if (clock_gettime(CLOCK_BOOTTIME, &now) != 0) return -1;
    const double start_ms = std::stod(field) * 1000.0 / double(sysconf(_SC_CLK_TCK));
    return double(now.tv_sec) * 1e3 + double(now.tv_nsec) / 1e6 - start_ms;
  }
  return -1;
}

}  // namespace

void enable() {
  const double exec_ms = ms_since_exec();
  const double now_ms = ms_since_origin();
  std::lock_guard lock(g_mutex);
  if (g_enabled.exchange(true)) return;
  g_steps.push_back({"exec -> static init (/proc, +-10 ms)", exec_ms < 0 ? -1 : exec_ms - now_ms});
  g_steps.push_back({"arguments parsed", now_ms});
}

bool enabled() { return g_enabled.load(std::memory_order_relaxed); }

void mark(std::string_view step) {
  if (!enabled()) return;
  const double ms = ms_since_origin();
  std::lock_guard lock(g_mutex);
  g_steps.push_back({std::string(step), ms});
}

std::vector<std::string> lines() {
  std::lock_guard lock(g_mutex);
  std::vector<std::string> out;
  if (g_steps.empty()) return out;
  out.push_back("startup (ms since static init; + since the step before)");
  double prev = 0;
  for (size_t i = 0; i < g_steps.size(); ++i) {
    const Step& s = g_steps[i];
    if (i == 0) {
      out.push_back(fmt::format("  {:<36} {:9.1f}", s.name, s.ms));
      continue;
    }
    out.push_back(fmt::format("  {:<36} {:9.1f}  (+{:.1f})", s.name, s.ms, s.ms - prev));
    prev = s.ms;
  }
  return out;
}

}  // namespace twinmaf::trace
