// What the C++ benchmarks share: "--name value" flags with a usage line, and order statistics
// over timings. Benchmarks are run by hand, so the parsing stays minimal: an argument that is
// not a known flag with a value is positional, and a wrong count of positionals is the caller's
// usage error.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <variant>
#include <vector>

namespace clustune::bench {

struct Flag {
  const char* name; // with its dashes, e.g. "--repeat"
  std::variant<std::string*, long*> value;
};

// Stores each flag's value through its pointer and returns the positional arguments; -h and
// --help print `usage` and exit.
inline std::vector<std::string> parseArguments(int argc, char** argv, const char* usage,
                                               std::initializer_list<Flag> flags) {
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "-h" || argument == "--help") {
      std::puts(usage);
      std::exit(0);
    }
    const Flag* flag = std::find_if(flags.begin(), flags.end(), [&](const Flag& candidate) {
      return argument == candidate.name;
    });
    if (flag == flags.end() || i + 1 >= argc) {
      positional.push_back(argument);
      continue;
    }
    const char* value = argv[++i];
    if (auto* text = std::get_if<std::string*>(&flag->value))
      **text = value;
    else
      *std::get<long*>(flag->value) = std::stol(value);
  }
  return positional;
}

// The nearest-rank quantile; 0 for no values. quantile(values, 0.5) is the upper median.
inline double quantile(std::vector<double> values, double q) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(q * static_cast<double>(values.size() - 1) + 0.5)];
}

inline double median(std::vector<double> values) {
  return quantile(std::move(values), 0.5);
}

} // namespace clustune::bench
