// The cost models a tuning run loads (clustune-tune --cost-model): a directory written by
// clustune-train (global.onnx, cluster-<i>.onnx, meta.json) plus, for routing tasks the
// clustering never saw, the GAE that embedded the clustered tasks (gae.onnx, optional). The
// bundled directories live under models/costmodels/<target>/, one per machine class the
// shipped datasets were measured on (docs/tuning.md).
#pragma once

#include "costmodel/CostModelEnsemble.h"
#include "gae/GaeModelFile.h"

#include <optional>
#include <string>

namespace clustune::tune {

struct CostModelDirectory {
  std::string path;
  costmodel::CostModelEnsemble ensemble;
  std::optional<gae::LoadedGae> gae; // absent: unassigned tasks use the global model
};

// The bundled directory for an LLVM CPU name: <root>/cpu-<cpu> when it exists, else the first
// cpu-* directory of a CPU with the same vector width, else the first of any (loading another
// CPU's directory warns that its models learnt another machine's timings). <root> is
// models/costmodels of the source tree, or $CLUSTUNE_COSTMODELS_DIR. Throws clustune::Error when
// there is none.
std::string bundledCostModelDirectory(const std::string& cpu);

// Loads and checks a directory for CPU programs (`cpu`: the LLVM CPU the run measures on).
// Throws clustune::Error naming the file for a missing or malformed directory, models of
// another feature version, or models made for another kind of target (not "llvm ...").
CostModelDirectory loadCostModelDirectory(const std::string& path, const std::string& cpu);

} // namespace clustune::tune
