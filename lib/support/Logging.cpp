// See Logging.h.
#include "support/Logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace clustune {

void setupLogging(int verbosity) {
  auto logger = spdlog::stderr_color_mt("clustune");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("%^[%l]%$ %v");
  spdlog::level::level_enum level = spdlog::level::info;
  if (verbosity >= 2)
    level = spdlog::level::trace;
  else if (verbosity == 1)
    level = spdlog::level::debug;
  else if (verbosity == -1)
    level = spdlog::level::warn;
  else if (verbosity <= -2)
    level = spdlog::level::err;
  spdlog::set_level(level);
}

} // namespace clustune
