// clustune::Error is the one exception type that library code throws for problems a user can
// fix (bad input files, unsupported operators, malformed flags). It carries the context a user
// needs to find the problem (file, line, node, task); tools catch it in main and print
// "error: <what()>" before exiting with status 1. Internal invariants use assert instead.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

namespace clustune {

struct ErrorContext {
  std::string file = {};
  std::optional<long> line = {};
  std::string node = {}; // graph node name, or "<op> #index" when the node is unnamed
  std::string task = {}; // workload key
};

class Error : public std::runtime_error {
public:
  explicit Error(std::string message, ErrorContext context = {});

  const std::string& message() const { return message_; }
  const ErrorContext& context() const { return context_; }

  // Returns a copy with missing context filled in from `outer`; lets a caller that knows the
  // file add it to an error raised deep inside a parser that only knew the node.
  Error withContext(const ErrorContext& outer) const;

private:
  std::string message_;
  ErrorContext context_;
};

// Formats "file:line: node 'n': task k: message" with the parts that are known.
std::string formatError(const std::string& message, const ErrorContext& context);

} // namespace clustune
