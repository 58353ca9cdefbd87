#include "costmodel/MlpCostModelFile.h"

#include "features/ProgramFeatures.h"
#include "nn/OnnxFile.h"
#include "support/Error.h"

namespace clustune::costmodel {
namespace {

constexpr const char* kFeatureVersionKey = "clustune.feature_version";
constexpr const char* kFeaturesKey = "clustune.features";
constexpr const char* kHiddenKey = "clustune.hidden";
constexpr const char* kResidualBlocksKey = "clustune.residual_blocks";
constexpr const char* kFeatureScale = "feature_scale";
constexpr const char* kReduceAxes = "reduce_axes";

// Adds Gemm(input, W, b) and returns the name of its output.
std::string addDense(nn::OnnxGraph& graph, const nn::Dense& layer, const std::string& input,
                     const std::string& output) {
  graph.nodes.push_back({"Gemm", {input, layer.weight().name, layer.bias().name}, {output}});
  return output;
}

std::string addRelu(nn::OnnxGraph& graph, const std::string& input, const std::string& output) {
  graph.nodes.push_back({"Relu", {input}, {output}});
  return output;
}

} // namespace

void saveMlpCostModel(const std::string& path, const MlpCostModel& model,
                      const std::map<std::string, std::string>& metadata) {
  const MlpArchitecture& architecture = model.architecture();
  nn::OnnxGraph graph;
  graph.name = "clustune_mlp_cost_model";
  graph.inputs.push_back({"statements", {-1, architecture.features}, {"statements", ""}});
  graph.outputs.push_back({"score", {1, 1}, {}});
  graph.metadata = metadata;
  graph.metadata["clustune.kind"] = kMlpModelKind;
  graph.metadata[kFeatureVersionKey] = std::to_string(features::kProgramFeatureVersion);
  graph.metadata[kFeaturesKey] = std::to_string(architecture.features);
  graph.metadata[kHiddenKey] = std::to_string(architecture.hidden);
  graph.metadata[kResidualBlocksKey] = std::to_string(architecture.residualBlocks);

  graph.initializers.emplace_back(kFeatureScale, model.featureScale());
  graph.oneDimensional.insert(kFeatureScale);
  for (const nn::Parameter* parameter : model.parameters()) {
    graph.initializers.emplace_back(parameter->name, parameter->value);
    if (parameter->value.rows() == 1)
      graph.oneDimensional.insert(parameter->name);
  }
  graph.int64Initializers.emplace_back(kReduceAxes, std::vector<std::int64_t>{0});

  graph.nodes.push_back({"Mul", {"statements", kFeatureScale}, {"normalised"}});
  std::string value = "normalised";
  for (int layer = 0; layer < 2; ++layer) {
    const std::string name = "encoder." + std::to_string(layer);
    value = addRelu(graph, addDense(graph, model.encoder(layer), value, name + ".linear"), name);
  }
  nn::OnnxNode sum{"ReduceSum", {value, kReduceAxes}, {"program"}};
  sum.intAttributes["keepdims"] = 1;
  graph.nodes.push_back(sum);
  value = "program";
  for (int block = 0; block < architecture.residualBlocks; ++block) {
    const std::string name = "residual." + std::to_string(block);
    const std::string activated =
        addRelu(graph, addDense(graph, model.residual(block).dense(), value, name + ".linear"),
                name + ".relu");
    graph.nodes.push_back({"Add", {activated, value}, {name}});
    value = name;
  }
  addDense(graph, model.head(), value, "score");
  nn::saveOnnxGraph(path, graph);
}

MlpCostModel loadMlpCostModel(const std::string& path) {
  const nn::OnnxGraph graph = nn::loadOnnxGraph(path, kMlpModelKind);
  const int version = nn::metadataInteger(graph, kFeatureVersionKey);
  if (version != features::kProgramFeatureVersion)
    throw Error("cost model was trained on program features of version " + std::to_string(version) +
                    ", but this clustune computes version " +
                    std::to_string(features::kProgramFeatureVersion) + ": retrain it",
                {path});
  MlpArchitecture architecture;
  architecture.features = nn::metadataInteger(graph, kFeaturesKey);
  architecture.hidden = nn::metadataInteger(graph, kHiddenKey);
  architecture.residualBlocks = nn::metadataInteger(graph, kResidualBlocksKey);
  if (architecture.features <= 0 || architecture.hidden <= 0 || architecture.residualBlocks < 0 ||
      architecture.residualBlocks > 64)
    throw Error("cost model architecture is out of range", {path});
  // The stored weights bound the sizes before anything of those sizes is allocated.
  const nn::Matrix scale = nn::shapedInitializer(graph, kFeatureScale, 1, architecture.features);
  nn::shapedInitializer(graph, "encoder.0.weight", architecture.features, architecture.hidden);
  nn::shapedInitializer(graph, "encoder.1.weight", architecture.hidden, architecture.hidden);
  MlpCostModel model(architecture, 0);
  model.setFeatureScale(scale);
  for (nn::Parameter* parameter : model.parameters())
    parameter->value = nn::shapedInitializer(graph, parameter->name, parameter->value.rows(),
                                             parameter->value.cols());
  return model;
}

} // namespace clustune::costmodel
