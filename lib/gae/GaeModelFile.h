// A trained graph autoencoder as a small ONNX file (docs/gae.md, docs/model-files.md): the graph
// maps one task's raw node features and its dense normalised adjacency to the task embedding,
// with the standardisation, both GCN layers and the mean/max readout as ONNX operators, so that
// ONNX Runtime or Netron can open it. The feature statistics, sizes and the task-graph feature
// version travel with it; loading refuses a file whose features would not match this clustune.
#pragma once

#include "gae/FeatureStandardizer.h"
#include "gae/GraphAutoencoder.h"

#include <map>
#include <string>

namespace clustune::gae {

inline constexpr const char* kGaeModelKind = "gae";

// `metadata` is stored beside the architecture (e.g. the training data and seed).
void saveGae(const std::string& path, const GraphAutoencoder& model,
             const FeatureStandardizer& standardizer,
             const std::map<std::string, std::string>& metadata = {});

struct LoadedGae {
  GraphAutoencoder model;
  FeatureStandardizer standardizer;
  std::map<std::string, std::string> metadata;
};

// Throws clustune::Error (with the file) for another kind of model, a task-graph feature
// version other than features::kTaskGraphFeatureVersion, missing or malformed metadata,
// tensors whose shapes disagree with the recorded sizes, and, when expectedFeatureCount >= 0,
// a feature count other than it.
LoadedGae loadGae(const std::string& path, int expectedFeatureCount = -1);

} // namespace clustune::gae
