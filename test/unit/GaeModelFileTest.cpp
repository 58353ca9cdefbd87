// GAE model files: a save/load round trip gives identical embeddings, the ONNX graph itself
// (run here by a small interpreter of its seven operators) computes the same embedding from raw
// features and the dense Â, and files of another feature version or shape are refused.
#include "gae/GaeModelFile.h"

#include "GaeTestSupport.h"
#include "nn/OnnxFile.h"
#include "support/Error.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <map>

using namespace clustune;
using namespace clustune::gae;
using namespace clustune::gae::testing;

namespace {

std::string temporaryPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("clustune-gae-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

// Evaluates the GAE graph with its own initializers: enough ONNX to check the file's wiring.
std::map<std::string, nn::Matrix> runGaeGraph(const nn::OnnxGraph& graph,
                                              std::map<std::string, nn::Matrix> values) {
  for (const auto& [name, value] : graph.initializers)
    values[name] = value;
  for (const nn::OnnxNode& node : graph.nodes) {
    const nn::Matrix& first = values.at(node.inputs[0]);
    nn::Matrix result;
    if (node.opType == "MatMul") {
      result = first * values.at(node.inputs[1]);
    } else if (node.opType == "Sub") {
      result = first.rowwise() - values.at(node.inputs[1]).row(0);
    } else if (node.opType == "Div") {
      result = first.array().rowwise() / values.at(node.inputs[1]).row(0).array();
    } else if (node.opType == "Relu") {
      result = first.cwiseMax(0.0f);
    } else if (node.opType == "ReduceMean" || node.opType == "ReduceMax") {
      EXPECT_EQ(node.intListAttributes.at("axes"), std::vector<std::int64_t>{0});
      EXPECT_EQ(node.intAttributes.at("keepdims"), 1);
      result = node.opType == "ReduceMean" ? nn::Matrix(first.colwise().mean())
                                           : nn::Matrix(first.colwise().maxCoeff());
    } else if (node.opType == "Concat") {
      EXPECT_EQ(node.intAttributes.at("axis"), 1);
      const nn::Matrix& second = values.at(node.inputs[1]);
      result.resize(first.rows(), first.cols() + second.cols());
      result << first, second;
    } else {
      ADD_FAILURE() << "unexpected operator " << node.opType;
    }
    values[node.outputs[0]] = result;
  }
  return values;
}

struct SavedModel {
  std::vector<features::TaskGraph> graphs = toyGraphs(6, 9);
  FeatureStandardizer standardizer;
  GraphAutoencoder model{{static_cast<int>(kToyFeatureCount), 8, 4}, 17};
  std::string path = temporaryPath("model.onnx");

  SavedModel() {
    standardizer.fit(pointersTo(graphs));
    saveGae(path, model, standardizer, {{"clustune.seed", "17"}});
  }
  ~SavedModel() { std::filesystem::remove(path); }
};

} // namespace

TEST(GaeModelFile, RoundTripGivesIdenticalEmbeddings) {
  const SavedModel saved;
  const LoadedGae loaded = loadGae(saved.path, static_cast<int>(kToyFeatureCount));
  EXPECT_EQ(loaded.model.architecture().hidden, 8);
  EXPECT_EQ(loaded.model.architecture().latent, 4);
  EXPECT_EQ(loaded.metadata.at("clustune.seed"), "17");
  EXPECT_TRUE(loaded.standardizer.mean() == saved.standardizer.mean());
  EXPECT_TRUE(loaded.standardizer.standardDeviation() == saved.standardizer.standardDeviation());
  for (const features::TaskGraph& graph : saved.graphs)
    EXPECT_TRUE(embedTaskGraph(loaded.model, loaded.standardizer, graph) ==
                embedTaskGraph(saved.model, saved.standardizer, graph));
  const auto savedParameters = saved.model.parameters();
  const auto loadedParameters = loaded.model.parameters();
  for (std::size_t index = 0; index < savedParameters.size(); ++index)
    EXPECT_TRUE(loadedParameters[index]->value == savedParameters[index]->value);
}

TEST(GaeModelFile, OnnxGraphComputesTheEmbeddingFromRawFeaturesAndDenseAdjacency) {
  const SavedModel saved;
  const nn::OnnxGraph graph = nn::loadOnnxGraph(saved.path, kGaeModelKind);
  EXPECT_EQ(graph.metadata.at("clustune.task_graph_feature_version"),
            std::to_string(features::kTaskGraphFeatureVersion));
  EXPECT_EQ(graph.metadata.at("clustune.hidden"), "8");
  EXPECT_EQ(graph.metadata.at("clustune.latent"), "4");
  EXPECT_EQ(graph.metadata.at("clustune.feature_count"), std::to_string(kToyFeatureCount));
  for (const features::TaskGraph& task : saved.graphs) {
    const std::map<std::string, nn::Matrix> values = runGaeGraph(
        graph, {{"features", rawFeatureMatrix(task)},
                {"adjacency",
                 nn::Matrix(normalizedAdjacency(static_cast<int>(task.nodeCount), task.edges))}});
    EXPECT_TRUE(values.at("embedding")
                    .isApprox(embedTaskGraph(saved.model, saved.standardizer, task), 1e-5f));
    EXPECT_EQ(values.at("node_embeddings").rows(), static_cast<Eigen::Index>(task.nodeCount));
  }
}

TEST(GaeModelFile, RefusesAnotherFeatureVersion) {
  const SavedModel saved;
  nn::OnnxGraph graph = nn::loadOnnxGraph(saved.path, kGaeModelKind);
  graph.metadata["clustune.task_graph_feature_version"] =
      std::to_string(features::kTaskGraphFeatureVersion + 1);
  const std::string changed = temporaryPath("version.onnx");
  nn::saveOnnxGraph(changed, graph);
  try {
    loadGae(changed);
    ADD_FAILURE() << "a file of another feature version was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("version"), std::string::npos) << error.what();
  }
  std::filesystem::remove(changed);
}

TEST(GaeModelFile, RefusesMismatchedSizesAndKinds) {
  const SavedModel saved;
  EXPECT_THROW(loadGae(saved.path, static_cast<int>(kToyFeatureCount) + 1), Error);
  nn::OnnxGraph graph = nn::loadOnnxGraph(saved.path, kGaeModelKind);
  graph.metadata["clustune.hidden"] = "9"; // the weights are 8 wide
  const std::string changed = temporaryPath("hidden.onnx");
  nn::saveOnnxGraph(changed, graph);
  EXPECT_THROW(loadGae(changed), Error);
  // Sizes far beyond the stored weights are refused before anything that large is allocated
  // (found by hand after the fuzz campaign: this used to exhaust memory).
  for (const char* key : {"clustune.hidden", "clustune.latent", "clustune.feature_count"}) {
    nn::OnnxGraph huge = nn::loadOnnxGraph(saved.path, kGaeModelKind);
    huge.metadata[key] = "1000000000";
    nn::saveOnnxGraph(changed, huge);
    try {
      loadGae(changed);
      ADD_FAILURE() << key << " of 10^9 was accepted";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("expected"), std::string::npos) << error.what();
    }
  }
  graph.metadata["clustune.hidden"] = "8";
  graph.metadata["clustune.kind"] = "costmodel.mlp";
  nn::saveOnnxGraph(changed, graph);
  EXPECT_THROW(loadGae(changed), Error);
  std::filesystem::remove(changed);
}
