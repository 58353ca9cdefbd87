// See TargetFile.h.
#include "codegen/TargetFile.h"

#include "support/Files.h"
#include "support/Jsonl.h"

namespace clustune::codegen {

nlohmann::json readTargetDescription(const std::string& path) {
  const ErrorContext context{.file = displayPath(path)};
  nlohmann::json description;
  try {
    description = nlohmann::json::parse(readFileBytes(path));
  } catch (const nlohmann::json::exception& error) {
    throw Error(std::string("not valid JSON: ") + error.what(), context);
  }
  if (!description.is_object())
    throw Error("a target description must be a JSON object", context);
  requireField<std::string>(description, "kind", context);
  return description;
}

void requireTargetKind(const nlohmann::json& description, const std::string& expected,
                       const ErrorContext& context) {
  const auto kind = requireField<std::string>(description, "kind", context);
  if (kind != expected)
    throw Error("field 'kind' is \"" + kind + "\"; a " + (expected == "cpu" ? "CPU" : "CUDA") +
                    " target needs \"" + expected + "\"",
                context);
}

} // namespace clustune::codegen
