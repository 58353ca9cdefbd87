// What every clustune tool's main shares: the common flags (-v, -q, --seed where randomness
// enters) and the top-level error handling that turns clustune::Error into one "error: ..." line
// on stderr and exit status 1.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>

namespace clustune {

struct CommonOptions {
  int verbose = 0;
  int quiet = 0;
  std::uint64_t seed = 0;
};

// Adds -v/--verbose and -q/--quiet (repeatable); with `withSeed`, also --seed.
void addCommonOptions(CLI::App& app, CommonOptions& options, bool withSeed);

// Parses argv, sets up logging and runs `body`; returns the process exit status.
int runTool(CLI::App& app, CommonOptions& options, int argc, char** argv,
            const std::function<int()>& body);

} // namespace clustune
