// Tenset's MLP cost model (costmodel/MlpCostModel.h): the forward pass against a hand-built
// composition of the kit's layers, its backward pass against finite differences through the
// whole network, feature scaling, determinism, and the ONNX file round trip with its checks.
#include "costmodel/MlpCostModel.h"
#include "costmodel/MlpCostModelFile.h"
#include "features/ProgramFeatures.h"
#include "nn/OnnxFile.h"
#include "support/Error.h"
#include "support/Random.h"

#include <filesystem>
#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::costmodel;

namespace {

constexpr MlpArchitecture kSmall{.features = 6, .hidden = 8, .residualBlocks = 2};

nn::Matrix randomStatements(Eigen::Index rows, Eigen::Index columns, std::uint64_t seed) {
  Rng rng(seed);
  nn::Matrix statements(rows, columns);
  for (Eigen::Index row = 0; row < rows; ++row)
    for (Eigen::Index column = 0; column < columns; ++column)
      statements(row, column) = static_cast<float>(rng.uniform(-3.0, 5.0));
  return statements;
}

const std::vector<int> kOffsets = {0, 2, 3, 7}; // three programs of 2, 1 and 4 statements

std::string temporaryPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("clustune-mlp-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

} // namespace

TEST(CostModelMlp, PredictSumsEncodedStatementsPerProgramThenAppliesResidualsAndHead) {
  MlpCostModel model(kSmall, 3);
  const nn::Matrix statements = randomStatements(7, kSmall.features, 5);
  model.fitFeatureScale(statements);
  const nn::Vector scores = model.predict(statements, kOffsets);
  ASSERT_EQ(scores.size(), 3);

  nn::Matrix scaled = statements;
  scaled.array().rowwise() *= model.featureScale().row(0).array();
  nn::Matrix encoded = nn::Relu::infer(model.encoder(0).infer(scaled));
  encoded = nn::Relu::infer(model.encoder(1).infer(encoded));
  for (int program = 0; program < 3; ++program) {
    nn::Matrix x = encoded.middleRows(kOffsets[program], kOffsets[program + 1] - kOffsets[program])
                       .colwise()
                       .sum();
    for (int block = 0; block < kSmall.residualBlocks; ++block)
      x = nn::Relu::infer(model.residual(block).dense().infer(x)) + x;
    EXPECT_NEAR(scores(program), model.head().infer(x)(0, 0), 1e-5f);
  }
}

TEST(CostModelMlp, FeatureScaleIsTheInverseColumnMaximumOfMagnitudes) {
  MlpCostModel model(kSmall, 3);
  nn::Matrix statements = nn::Matrix::Zero(2, kSmall.features);
  statements(0, 0) = 4.0f;
  statements(1, 0) = -8.0f;
  statements(1, 1) = 0.5f;
  model.fitFeatureScale(statements);
  EXPECT_FLOAT_EQ(model.featureScale()(0, 0), 0.125f);
  EXPECT_FLOAT_EQ(model.featureScale()(0, 1), 2.0f);
  EXPECT_FLOAT_EQ(model.featureScale()(0, 2), 1.0f); // an all-zero column is left alone
}

TEST(CostModelMlp, BackwardMatchesFiniteDifferencesThroughTheWholeNetwork) {
  MlpCostModel model(kSmall, 11);
  const nn::Matrix statements = randomStatements(7, kSmall.features, 13);
  model.fitFeatureScale(statements);
  const nn::Vector weights = (nn::Vector(3) << 0.7f, -1.3f, 0.4f).finished();
  auto loss = [&] { return static_cast<double>(model.predict(statements, kOffsets).dot(weights)); };

  for (nn::Parameter* parameter : model.parameters())
    parameter->gradient.setZero();
  model.forward(statements, kOffsets);
  model.backward(weights);

  int checked = 0;
  for (nn::Parameter* parameter : model.parameters()) {
    for (Eigen::Index index = 0; index < parameter->value.size(); index += 7) {
      float& value = parameter->value.data()[index];
      const float original = value;
      const float step = 1e-2f;
      value = original + step;
      const double up = loss();
      value = original - step;
      const double down = loss();
      value = original;
      const double numeric = (up - down) / (2 * step);
      const double analytic = parameter->gradient.data()[index];
      EXPECT_NEAR(analytic, numeric, 2e-2 * std::max(1.0, std::abs(numeric)))
          << parameter->name << "[" << index << "]";
      ++checked;
    }
  }
  EXPECT_GT(checked, 40);
}

TEST(CostModelMlp, InitialisationIsDeterministicPerSeed) {
  const nn::Matrix statements = randomStatements(7, kSmall.features, 2);
  const MlpCostModel first(kSmall, 42), again(kSmall, 42), other(kSmall, 43);
  EXPECT_EQ(first.predict(statements, kOffsets), again.predict(statements, kOffsets));
  EXPECT_NE(first.predict(statements, kOffsets), other.predict(statements, kOffsets));
}

TEST(CostModelMlp, SavedModelLoadsBackWithIdenticalPredictions) {
  MlpCostModel model(kSmall, 9);
  const nn::Matrix statements = randomStatements(7, kSmall.features, 4);
  model.fitFeatureScale(statements);
  const std::string path = temporaryPath("roundtrip.onnx");
  saveMlpCostModel(path, model, {{"clustune.seed", "9"}});
  const MlpCostModel loaded = loadMlpCostModel(path);
  EXPECT_EQ(loaded.architecture().hidden, kSmall.hidden);
  EXPECT_EQ(loaded.featureScale(), model.featureScale());
  EXPECT_EQ(loaded.predict(statements, kOffsets), model.predict(statements, kOffsets));
  std::filesystem::remove(path);
}

TEST(CostModelMlp, LoadingRefusesAnotherFeatureVersion) {
  const std::string path = temporaryPath("version.onnx");
  saveMlpCostModel(path, MlpCostModel(kSmall, 1));
  nn::OnnxGraph graph = nn::loadOnnxGraph(path, kMlpModelKind);
  graph.metadata["clustune.feature_version"] = std::to_string(features::kProgramFeatureVersion + 1);
  nn::saveOnnxGraph(path, graph);
  try {
    loadMlpCostModel(path);
    FAIL() << "a model of another feature version loaded";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("features of version"), std::string::npos)
        << error.what();
  }
  std::filesystem::remove(path);
}

TEST(CostModelMlp, LoadingRefusesSizesBeyondTheStoredWeightsBeforeAllocating) {
  const std::string path = temporaryPath("sizes.onnx");
  saveMlpCostModel(path, MlpCostModel(kSmall, 1));
  // 10^9 wide layers would need exabytes; this used to exhaust memory instead of being refused.
  for (const char* key : {"clustune.hidden", "clustune.features"}) {
    nn::OnnxGraph graph = nn::loadOnnxGraph(path, kMlpModelKind);
    graph.metadata[key] = "1000000000";
    const std::string changed = temporaryPath("sizes-changed.onnx");
    nn::saveOnnxGraph(changed, graph);
    try {
      loadMlpCostModel(changed);
      ADD_FAILURE() << key << " of 10^9 was accepted";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("expected"), std::string::npos) << error.what();
    }
    std::filesystem::remove(changed);
  }
  std::filesystem::remove(path);
}

TEST(CostModelMlp, LoadingRefusesAFileThatIsNotAClustuneCostModel) {
  EXPECT_THROW(loadMlpCostModel(std::string(CLUSTUNE_SOURCE_DIR) + "/models/resnet18.onnx"), Error);
  EXPECT_THROW(loadMlpCostModel(temporaryPath("absent.onnx")), Error);
}
