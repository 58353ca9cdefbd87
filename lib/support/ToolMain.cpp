// See ToolMain.h.
#include "support/ToolMain.h"

#include "support/Error.h"
#include "support/Logging.h"

#include <cstdio>
#include <exception>
#include <spdlog/spdlog.h>

namespace clustune {

void addCommonOptions(CLI::App& app, CommonOptions& options, bool withSeed) {
  app.add_flag("-v,--verbose", options.verbose, "More log output on stderr (repeatable)");
  app.add_flag("-q,--quiet", options.quiet, "Less log output on stderr (repeatable)");
  if (withSeed)
    app.add_option("--seed", options.seed, "Seed for every random choice")->capture_default_str();
}

int runTool(CLI::App& app, CommonOptions& options, int argc, char** argv,
            const std::function<int()>& body) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForVersion& version) {
    return app.exit(version);
  } catch (const CLI::ParseError& error) {
    std::fprintf(stderr, "error: %s\nRun with --help for usage.\n", error.what());
    return 1;
  }
  setupLogging(options.verbose - options.quiet);
  try {
    return body();
  } catch (const Error& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "error: out of memory\n");
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: internal: %s\n", error.what());
  }
  return 1;
}

} // namespace clustune
