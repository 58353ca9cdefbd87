// Progress display for long loops. On a terminal it redraws one live line on stderr ("label
// 37/120 31% 4.2/s eta 20s"); otherwise (pipes, CI logs) it logs a line through spdlog at most
// every `logInterval` seconds, so logs stay readable. Quiet mode (-q) suppresses both.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace clustune {

class Progress {
public:
  Progress(std::string label, std::size_t total, double logIntervalSeconds = 10.0);
  ~Progress(); // ends the live line

  void advance(std::size_t steps = 1);
  // Extra text shown after the counts (e.g. "errors 3%").
  void setDetail(std::string detail);
  void finish();

  // The text of the status line, without terminal control characters; public for tests.
  std::string statusLine() const;

private:
  void render(bool force);

  std::string label_;
  std::string detail_;
  std::size_t total_;
  std::size_t done_ = 0;
  double logIntervalSeconds_;
  bool live_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point lastRender_;
};

} // namespace clustune
