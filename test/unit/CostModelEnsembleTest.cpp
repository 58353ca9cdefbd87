// The cost-model directory as an ensemble (costmodel/CostModelEnsemble.h): routing to cluster
// models and back to the global model, and the checks on meta.json.
#include "costmodel/CostModelEnsemble.h"

#include "costmodel/MlpCostModelFile.h"
#include "features/ProgramFeatures.h"
#include "support/Error.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace clustune;
using namespace clustune::costmodel;

namespace {

constexpr MlpArchitecture kSmall{.features = 4, .hidden = 8, .residualBlocks = 1};

struct Directory {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("clustune-ensemble-" + std::to_string(::getpid()));
  nlohmann::json meta;

  Directory() {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
    saveMlpCostModel((path / "global.onnx").string(), MlpCostModel(kSmall, 1));
    saveMlpCostModel((path / "cluster-0.onnx").string(), MlpCostModel(kSmall, 2));
    meta = {{"v", 1},
            {"kind", "clustune.costmodel"},
            {"feature_version", features::kProgramFeatureVersion},
            {"models",
             {{{"name", "global"}, {"file", "global.onnx"}},
              {{"name", "cluster-0"}, {"file", "cluster-0.onnx"}}}},
            {"routing",
             {{"radius_factor", 1.5},
              {"assign", {{"aaaa", 0}, {"bbbb", 1}}},
              {"centroids", {{0.0, 0.0}, {10.0, 0.0}}},
              {"radii", {1.0, 1.0}}}}};
    writeMeta();
  }
  ~Directory() { std::filesystem::remove_all(path); }
  void writeMeta() const { std::ofstream(path / "meta.json") << meta.dump(); }
};

} // namespace

TEST(CostModelEnsemble, AssignedTasksUseTheirClustersModelOthersTheGlobalOne) {
  Directory directory;
  const CostModelEnsemble ensemble = CostModelEnsemble::load(directory.path.string());
  EXPECT_EQ(ensemble.route("aaaa"), "cluster-0");
  EXPECT_EQ(ensemble.route("bbbb"), "global"); // cluster 1 has no model
  EXPECT_EQ(ensemble.route("cccc"), "global"); // unassigned
  EXPECT_EQ(ensemble.modelNames(), (std::vector<std::string>{"cluster-0", "global"}));
}

TEST(CostModelEnsemble, UnseenTasksRouteByEmbeddingWithinTheRadiusFactor) {
  Directory directory;
  const CostModelEnsemble ensemble = CostModelEnsemble::load(directory.path.string());
  const std::vector<double> near = {1.2, 0.5}; // 1.3 from centroid 0, radius 1 × 1.5
  const std::vector<double> far = {1.0, 1.5};  // 1.8 from centroid 0
  EXPECT_EQ(ensemble.route("cccc", &near), "cluster-0");
  EXPECT_EQ(ensemble.route("cccc", &far), "global");
  // How each was decided, as clustune-eval --embeddings counts it.
  EXPECT_EQ(ensemble.decideRoute("aaaa", &far).reason, RouteReason::Assigned);
  EXPECT_EQ(ensemble.decideRoute("cccc", &near).reason, RouteReason::NearestCentroid);
  EXPECT_EQ(ensemble.decideRoute("cccc", &far).reason, RouteReason::FarFromEveryCluster);
  EXPECT_EQ(ensemble.decideRoute("cccc").reason, RouteReason::Unassigned);
  EXPECT_STREQ(routeReasonName(RouteReason::FarFromEveryCluster), "far_from_every_cluster");
  const std::vector<double> wrongWidth = {1.0};
  EXPECT_THROW(ensemble.route("cccc", &wrongWidth), Error);
}

TEST(CostModelEnsemble, WithoutAGlobalModelAnUnroutedTaskIsAnError) {
  Directory directory;
  directory.meta["models"] = {{{"name", "cluster-0"}, {"file", "cluster-0.onnx"}}};
  directory.writeMeta();
  const CostModelEnsemble ensemble = CostModelEnsemble::load(directory.path.string());
  EXPECT_EQ(ensemble.route("aaaa"), "cluster-0");
  EXPECT_THROW(ensemble.route("cccc"), Error);
}

TEST(CostModelEnsemble, ForeignOrMismatchedDirectoriesAreErrors) {
  Directory directory;
  auto expectError = [&](const std::string& fragment) {
    try {
      CostModelEnsemble::load(directory.path.string());
      ADD_FAILURE() << "loaded a directory that should fail with '" << fragment << "'";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    }
  };
  directory.meta["feature_version"] = features::kProgramFeatureVersion + 1;
  directory.writeMeta();
  expectError("program features of version");
  directory.meta["feature_version"] = features::kProgramFeatureVersion;
  directory.meta["kind"] = "something.else";
  directory.writeMeta();
  expectError("not a clustune cost-model directory");
  directory.meta["kind"] = "clustune.costmodel";
  directory.meta["models"] = {{{"name", "global"}, {"file", "../global.onnx"}}};
  directory.writeMeta();
  expectError("must lie in the model directory");
  std::filesystem::remove(directory.path / "meta.json");
  expectError("meta.json");
}
