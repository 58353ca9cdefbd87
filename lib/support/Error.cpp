// Formatting of clustune::Error messages; see Error.h.
#include "support/Error.h"

#include <sstream>

namespace clustune {

std::string formatError(const std::string& message, const ErrorContext& context) {
  // A stream rather than string concatenation: GCC 12 reports a false -Wrestrict on the latter.
  std::ostringstream text;
  if (!context.file.empty()) {
    text << context.file;
    if (context.line)
      text << ':' << *context.line;
    text << ": ";
  }
  if (!context.node.empty())
    text << "node '" << context.node << "': ";
  if (!context.task.empty())
    text << "task " << context.task << ": ";
  text << message;
  return text.str();
}

Error::Error(std::string message, ErrorContext context)
    : std::runtime_error(formatError(message, context)), message_(std::move(message)),
      context_(std::move(context)) {}

Error Error::withContext(const ErrorContext& outer) const {
  ErrorContext merged = context_;
  if (merged.file.empty())
    merged.file = outer.file;
  if (!merged.line)
    merged.line = outer.line;
  if (merged.node.empty())
    merged.node = outer.node;
  if (merged.task.empty())
    merged.task = outer.task;
  return Error(message_, merged);
}

} // namespace clustune
