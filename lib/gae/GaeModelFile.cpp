// The standardisation is stored as Sub(mean) then Div(std), the exact operations
// FeatureStandardizer performs, so ONNX Runtime reproduces clustune's embeddings bit for bit
// rather than through a rounded reciprocal.
#include "gae/GaeModelFile.h"

#include "nn/OnnxFile.h"
#include "support/Error.h"

namespace clustune::gae {
namespace {

constexpr const char* kFeatureVersionKey = "clustune.task_graph_feature_version";
constexpr const char* kFeatureCountKey = "clustune.feature_count";
constexpr const char* kHiddenKey = "clustune.hidden";
constexpr const char* kLatentKey = "clustune.latent";
constexpr const char* kFeatureWeightKey = "clustune.feature_weight";
constexpr const char* kFeatureMean = "feature_mean";
constexpr const char* kFeatureStandardDeviation = "feature_std";

} // namespace

void saveGae(const std::string& path, const GraphAutoencoder& model,
             const FeatureStandardizer& standardizer,
             const std::map<std::string, std::string>& metadata) {
  const GaeArchitecture& architecture = model.architecture();
  if (standardizer.featureCount() != architecture.features)
    throw Error("feature statistics cover " + std::to_string(standardizer.featureCount()) +
                    " features, the graph autoencoder has " + std::to_string(architecture.features),
                {path});
  nn::OnnxGraph graph;
  graph.name = "clustune_gae";
  graph.inputs.push_back({"features", {-1, architecture.features}, {"nodes", ""}});
  graph.inputs.push_back({"adjacency", {-1, -1}, {"nodes", "nodes"}});
  graph.outputs.push_back({"embedding", {1, 2 * architecture.latent}, {}});
  graph.outputs.push_back({"node_embeddings", {-1, architecture.latent}, {"nodes", ""}});
  graph.metadata = metadata;
  graph.metadata[nn::kOnnxKindKey] = kGaeModelKind;
  graph.metadata[kFeatureVersionKey] = std::to_string(features::kTaskGraphFeatureVersion);
  graph.metadata[kFeatureCountKey] = std::to_string(architecture.features);
  graph.metadata[kHiddenKey] = std::to_string(architecture.hidden);
  graph.metadata[kLatentKey] = std::to_string(architecture.latent);
  graph.metadata[kFeatureWeightKey] = std::to_string(model.featureWeight());

  graph.initializers.emplace_back(kFeatureMean, standardizer.mean());
  graph.oneDimensional.insert(kFeatureMean);
  graph.initializers.emplace_back(kFeatureStandardDeviation, standardizer.standardDeviation());
  graph.oneDimensional.insert(kFeatureStandardDeviation);
  // The feature decoder is stored too (unused by the graph's nodes) so that a loaded model can
  // be trained further or evaluated on feature reconstruction.
  for (const nn::Parameter* parameter : model.parameters()) {
    graph.initializers.emplace_back(parameter->name, parameter->value);
    if (parameter->value.rows() == 1)
      graph.oneDimensional.insert(parameter->name);
  }

  auto add = [&](nn::OnnxNode node) { graph.nodes.push_back(std::move(node)); };
  add({"Sub", {"features", kFeatureMean}, {"centred"}});
  add({"Div", {"centred", kFeatureStandardDeviation}, {"standardised"}});
  add({"MatMul", {"adjacency", "standardised"}, {"encoder.0.aggregated"}});
  add({"MatMul", {"encoder.0.aggregated", model.encoder(0).weight().name}, {"encoder.0"}});
  add({"Relu", {"encoder.0"}, {"hidden"}});
  add({"MatMul", {"adjacency", "hidden"}, {"encoder.1.aggregated"}});
  add({"MatMul", {"encoder.1.aggregated", model.encoder(1).weight().name}, {"node_embeddings"}});
  // Opset 13 takes ReduceMean's and ReduceMax's axes as an attribute (an input from opset 18).
  for (const char* reduction : {"ReduceMean", "ReduceMax"}) {
    nn::OnnxNode node{reduction,
                      {"node_embeddings"},
                      {reduction == std::string("ReduceMean") ? "readout.mean" : "readout.max"}};
    node.intListAttributes["axes"] = {0};
    node.intAttributes["keepdims"] = 1;
    add(node);
  }
  nn::OnnxNode concat{"Concat", {"readout.mean", "readout.max"}, {"embedding"}};
  concat.intAttributes["axis"] = 1;
  add(concat);
  nn::saveOnnxGraph(path, graph);
}

LoadedGae loadGae(const std::string& path, int expectedFeatureCount) {
  const nn::OnnxGraph graph = nn::loadOnnxGraph(path, kGaeModelKind);
  const int version = nn::metadataInteger(graph, kFeatureVersionKey);
  if (version != features::kTaskGraphFeatureVersion)
    throw Error("graph autoencoder was trained on task-graph features of version " +
                    std::to_string(version) + ", but this clustune computes version " +
                    std::to_string(features::kTaskGraphFeatureVersion) + ": retrain it",
                {path});
  GaeArchitecture architecture;
  architecture.features = nn::metadataInteger(graph, kFeatureCountKey);
  architecture.hidden = nn::metadataInteger(graph, kHiddenKey);
  architecture.latent = nn::metadataInteger(graph, kLatentKey);
  if (architecture.features <= 0 || architecture.hidden <= 0 || architecture.latent <= 0)
    throw Error("graph autoencoder sizes are out of range", {path});
  if (expectedFeatureCount >= 0 && architecture.features != expectedFeatureCount)
    throw Error("graph autoencoder takes " + std::to_string(architecture.features) +
                    " node features, but task graphs here have " +
                    std::to_string(expectedFeatureCount) + ": retrain it",
                {path});
  float featureWeight = 1;
  if (const auto found = graph.metadata.find(kFeatureWeightKey); found != graph.metadata.end()) {
    try {
      featureWeight = std::stof(found->second);
    } catch (const std::exception&) {
      throw Error("graph autoencoder metadata '" + std::string(kFeatureWeightKey) +
                      "' is not a number: '" + found->second + "'",
                  {path});
    }
  }

  // The stored weights bound the sizes before anything of those sizes is allocated.
  const nn::Matrix mean = nn::shapedInitializer(graph, kFeatureMean, 1, architecture.features);
  const nn::Matrix deviation =
      nn::shapedInitializer(graph, kFeatureStandardDeviation, 1, architecture.features);
  nn::shapedInitializer(graph, "encoder.0.weight", architecture.features, architecture.hidden);
  nn::shapedInitializer(graph, "encoder.1.weight", architecture.hidden, architecture.latent);
  if (!(deviation.array() > 0).all())
    throw Error("graph autoencoder feature standard deviations must be positive", {path});
  LoadedGae loaded{GraphAutoencoder(architecture, 0, featureWeight),
                   FeatureStandardizer(mean, deviation), graph.metadata};
  for (nn::Parameter* parameter : loaded.model.parameters())
    parameter->value = nn::shapedInitializer(graph, parameter->name, parameter->value.rows(),
                                             parameter->value.cols());
  return loaded;
}

} // namespace clustune::gae
