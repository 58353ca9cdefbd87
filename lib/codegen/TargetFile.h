// What the loaders of configs/targets/*.json share (CpuTarget.h, CudaTarget.h): reading the
// description as a JSON object and checking its "kind".
#pragma once

#include "support/Error.h"

#include <nlohmann/json.hpp>
#include <string>

namespace clustune::codegen {

// The description in `path`, which must be a JSON object with a string "kind"; an Error naming
// the file otherwise.
nlohmann::json readTargetDescription(const std::string& path);

// The description's "kind", which must be `expected`: an Error that says which kind the file
// holds and which the caller needs.
void requireTargetKind(const nlohmann::json& description, const std::string& expected,
                       const ErrorContext& context);

} // namespace clustune::codegen
