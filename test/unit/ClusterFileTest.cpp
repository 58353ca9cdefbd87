// clusters.json (cluster/ClusterFile.h): the round trip, the validation of every field, and
// nearest-centroid assignment.
#include "cluster/ClusterFile.h"

#include "support/Error.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::cluster;

namespace {

std::string temporaryPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("clustune-clusters-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

std::string writeText(const std::string& name, const std::string& text) {
  const std::string path = temporaryPath(name);
  std::ofstream(path) << text;
  return path;
}

ClusterFile twoClusters() {
  ClusterFile clusters;
  clusters.k = 2;
  clusters.silhouette = 0.5;
  clusters.centroids = {{0.0, 0.0}, {10.0, 0.0}};
  clusters.assign = {{"aaaa", 0}, {"bbbb", 1}};
  clusters.clusters = {{.size = 1, .radius = 1.5, .anchors = {{"Conv", 1}}},
                       {.size = 1, .radius = 2.0, .anchors = {{"MatMul", 1}}}};
  return clusters;
}

} // namespace

TEST(ClusterFile, RoundTripsEveryField) {
  const std::string path = temporaryPath("roundtrip.json");
  writeClusterFile(path, twoClusters());
  const ClusterFile read = readClusterFile(path);
  EXPECT_EQ(read.k, 2);
  EXPECT_DOUBLE_EQ(read.silhouette, 0.5);
  EXPECT_EQ(read.centroids, twoClusters().centroids);
  EXPECT_EQ(read.assign, twoClusters().assign);
  ASSERT_EQ(read.clusters.size(), 2u);
  EXPECT_DOUBLE_EQ(read.clusters[1].radius, 2.0);
  EXPECT_EQ(read.clusters[0].anchors.at("Conv"), 1);
  std::filesystem::remove(path);
}

TEST(ClusterFile, TheDesignDocumentsMinimalFormReads) {
  const std::string path =
      writeText("minimal.json",
                R"({"v":1,"k":2,"silhouette":0.41,"centroids":[[1,2],[3,4]],"assign":{"ab":1}})");
  const ClusterFile read = readClusterFile(path);
  EXPECT_EQ(read.assign.at("ab"), 1);
  EXPECT_TRUE(read.clusters.empty());
  std::filesystem::remove(path);
}

TEST(ClusterFile, MalformedFilesAreErrorsThatNameTheProblem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "invalid JSON: parse error"},
      // Found by fuzz-cluster_file: nlohmann raises out_of_range, not parse_error, for this.
      {R"({"v":1,"k":2.70e4058})", "invalid JSON: number overflow"},
      {R"({"v":2,"k":1,"silhouette":0,"centroids":[[1]],"assign":{}})", "version 2"},
      {R"({"v":1,"k":2,"silhouette":0,"centroids":[[1]],"assign":{}})", "k = 2 but 1 centroids"},
      {R"({"v":1,"k":1,"silhouette":0,"centroids":[[1]],"assign":{"ab":3}})",
       "assigned to cluster 3"},
      {R"({"v":1,"k":2,"silhouette":0,"centroids":[[1],[1,2]],"assign":{}})", "differ in width"},
      {R"({"v":1,"k":1,"centroids":[[1]],"assign":{}})", "'silhouette'"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string path = writeText("bad.json", text);
    try {
      readClusterFile(path);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(expected), std::string::npos)
          << error.what() << " (expected '" << expected << "')";
      EXPECT_NE(std::string(error.what()).find("bad.json"), std::string::npos) << error.what();
    }
    std::filesystem::remove(path);
  }
}

TEST(ClusterFile, NearestClusterIsTheClosestCentroidByEuclideanDistance) {
  const ClusterFile clusters = twoClusters();
  const NearestCluster near = nearestCluster(clusters, {7.0, 4.0});
  EXPECT_EQ(near.cluster, 1);
  EXPECT_DOUBLE_EQ(near.distance, 5.0);
  EXPECT_EQ(nearestCluster(clusters, {4.9, 0.0}).cluster, 0);
  EXPECT_THROW(nearestCluster(clusters, {1.0}), Error);
}
