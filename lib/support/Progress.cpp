// See Progress.h.
#include "support/Progress.h"

#include "support/Stopwatch.h"

#include <cstdio>
#include <spdlog/spdlog.h>
#include <unistd.h>

namespace clustune {

Progress::Progress(std::string label, std::size_t total, double logIntervalSeconds)
    : label_(std::move(label)), total_(total), logIntervalSeconds_(logIntervalSeconds),
      live_(::isatty(STDERR_FILENO) && spdlog::should_log(spdlog::level::info)),
      start_(SteadyClock::now()), lastRender_(start_) {}

Progress::~Progress() {
  finish();
}

void Progress::advance(std::size_t steps) {
  done_ += steps;
  render(false);
}

void Progress::setDetail(std::string detail) {
  detail_ = std::move(detail);
}

std::string Progress::statusLine() const {
  const double elapsed = secondsSince(start_);
  const double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0.0;
  char buffer[160];
  if (total_ > 0) {
    const double fraction = static_cast<double>(done_) / static_cast<double>(total_);
    const double remaining =
        rate > 0 ? static_cast<double>(total_ - std::min(done_, total_)) / rate : 0;
    std::snprintf(buffer, sizeof buffer, "%zu/%zu %3.0f%% %.1f/s eta %.0fs", done_, total_,
                  100.0 * fraction, rate, remaining);
  } else {
    std::snprintf(buffer, sizeof buffer, "%zu %.1f/s", done_, rate);
  }
  std::string line = label_ + " " + buffer;
  if (!detail_.empty())
    line += " " + detail_;
  return line;
}

void Progress::render(bool force) {
  const auto now = SteadyClock::now();
  const double sinceLast = std::chrono::duration<double>(now - lastRender_).count();
  if (live_) {
    if (!force && sinceLast < 0.1)
      return;
    std::fprintf(stderr, "\r\033[K%s", statusLine().c_str());
    std::fflush(stderr);
  } else {
    if (!force && sinceLast < logIntervalSeconds_)
      return;
    spdlog::info("{}", statusLine());
  }
  lastRender_ = now;
}

void Progress::finish() {
  if (finished_)
    return;
  finished_ = true;
  if (live_) {
    render(true);
    std::fprintf(stderr, "\n");
  } else if (secondsSince(start_) > logIntervalSeconds_) {
    render(true); // a run long enough to have logged progress also logs its end
  }
}

} // namespace clustune
