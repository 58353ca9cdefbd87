// What clustune-cluster does (cluster/Clustering.h, cluster/EmbeddingFile.h): K-means over task
// embeddings with the clusters.json description (sizes, radii, anchors), the anchor-op
// baseline, assignment of new embeddings with the far flag, and embeddings.jsonl validation.
#include "cluster/Clustering.h"

#include "cluster/EmbeddingFile.h"
#include "support/Error.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::cluster;

namespace {

// Two tight groups far apart: convolutions near (0, 0), matmuls near (10, 0).
std::vector<TaskEmbedding> twoGroups() {
  return {{"a0", "Conv", {0.0, 0.0}},    {"a1", "Conv", {1.0, 0.0}},
          {"a2", "Conv", {0.0, 1.0}},    {"b0", "MatMul", {10.0, 0.0}},
          {"b1", "MatMul", {11.0, 0.0}}, {"b2", "Conv", {10.0, 1.0}}};
}

std::string writeText(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("clustune-clustering-" + std::to_string(::getpid()) + "-" + name))
                               .string();
  std::ofstream(path) << text;
  return path;
}

} // namespace

TEST(Clustering, KMeansFindsTheTwoGroupsAndDescribesThem) {
  const ClusteringResult result = clusterEmbeddings(twoGroups(), {.k = 0, .minK = 2, .maxK = 4});
  const ClusterFile& clusters = result.clusters;
  ASSERT_EQ(clusters.k, 2);
  EXPECT_EQ(clusters.assign.at("a0"), clusters.assign.at("a2"));
  EXPECT_EQ(clusters.assign.at("b0"), clusters.assign.at("b2"));
  EXPECT_NE(clusters.assign.at("a0"), clusters.assign.at("b0"));
  const ClusterInfo& first = clusters.clusters[static_cast<std::size_t>(clusters.assign.at("a0"))];
  EXPECT_EQ(first.size, 3);
  EXPECT_EQ(first.anchors.at("Conv"), 3);
  // Centroid (1/3, 1/3); the farthest members (1, 0) and (0, 1) lie sqrt(5)/3 away.
  EXPECT_NEAR(first.radius, std::sqrt(5.0) / 3.0, 1e-12);
  const ClusterInfo& second = clusters.clusters[static_cast<std::size_t>(clusters.assign.at("b0"))];
  EXPECT_EQ(second.anchors.at("MatMul"), 2);
  EXPECT_EQ(second.anchors.at("Conv"), 1);
  EXPECT_GT(clusters.silhouette, 0.8);
  EXPECT_EQ(result.silhouettes.size(), 3u); // k = 2, 3, 4
  // Inertia: each group of three at squared distances 2/9, 5/9, 5/9 from its centroid.
  EXPECT_NEAR(result.inertia, 2 * (2.0 / 9 + 5.0 / 9 + 5.0 / 9), 1e-9);
}

TEST(Clustering, AGivenKIsUsedAndTooLargeAKIsAnError) {
  EXPECT_EQ(clusterEmbeddings(twoGroups(), {.k = 3}).clusters.k, 3);
  EXPECT_THROW(clusterEmbeddings(twoGroups(), {.k = 7}), Error);
}

TEST(Clustering, AnchorBaselineGroupsByAnchorOpInNameOrder) {
  const ClusteringResult result = clusterByAnchor(twoGroups());
  ASSERT_EQ(result.clusters.k, 2);
  EXPECT_EQ(result.clusters.assign.at("b2"), 0); // "Conv" sorts before "MatMul"
  EXPECT_EQ(result.clusters.assign.at("b0"), 1);
  // Conv's centroid is the mean of its four members.
  EXPECT_NEAR(result.clusters.centroids[0][0], 11.0 / 4, 1e-12);
  EXPECT_NEAR(result.clusters.centroids[0][1], 2.0 / 4, 1e-12);
  // b2 sits with the matmuls, so the anchor grouping scores a lower silhouette than K-means.
  EXPECT_LT(result.clusters.silhouette,
            clusterEmbeddings(twoGroups(), {.k = 2}).clusters.silhouette);
}

TEST(Clustering, RandomControlKeepsTheSizesAndDealsTheMembersBySeed) {
  const ClusterFile reference = clusterEmbeddings(twoGroups(), {.k = 2}).clusters;
  const ClusteringResult first = clusterAtRandom(twoGroups(), reference, 1);
  ASSERT_EQ(first.clusters.k, 2);
  std::vector<int> sizes, referenceSizes;
  for (std::size_t cluster = 0; cluster < 2; ++cluster) {
    sizes.push_back(first.clusters.clusters[cluster].size);
    referenceSizes.push_back(reference.clusters[cluster].size);
  }
  EXPECT_EQ(sizes, referenceSizes);
  EXPECT_EQ(clusterAtRandom(twoGroups(), reference, 1).clusters.assign, first.clusters.assign);
  // Some seed deals another partition, and a mixed partition separates worse than K-means.
  bool moved = false;
  for (std::uint64_t seed = 2; seed < 12 && !moved; ++seed) {
    const ClusterFile other = clusterAtRandom(twoGroups(), reference, seed).clusters;
    moved = other.assign != first.clusters.assign;
    if (moved) {
      EXPECT_LT(std::min(other.silhouette, first.clusters.silhouette), reference.silhouette);
    }
  }
  EXPECT_TRUE(moved);
  // A task the reference never saw has no size to be drawn into.
  std::vector<TaskEmbedding> withNew = twoGroups();
  withNew.push_back({"new", "Conv", {0.0, 0.0}});
  EXPECT_THROW(clusterAtRandom(withNew, reference, 1), clustune::Error);
}

TEST(Clustering, AssignmentFlagsEmbeddingsBeyondTheFarFactorOfTheRadius) {
  const ClusterFile clusters = clusterEmbeddings(twoGroups(), {.k = 2}).clusters;
  const int groupA = clusters.assign.at("a0");
  const double radius = clusters.clusters[static_cast<std::size_t>(groupA)].radius;
  const double inside = 1.0 / 3 + 0.9 * kFarRadiusFactor * radius;
  const double outside = 1.0 / 3 + 1.1 * kFarRadiusFactor * radius;
  const std::vector<Assignment> assignments = assignEmbeddings(
      clusters, {{"new0", "Conv", {inside, 1.0 / 3}}, {"new1", "Conv", {outside, 1.0 / 3}}});
  EXPECT_EQ(assignments[0].cluster, groupA);
  EXPECT_FALSE(assignments[0].far);
  EXPECT_EQ(assignments[1].cluster, groupA);
  EXPECT_TRUE(assignments[1].far);
  EXPECT_NEAR(assignments[1].distance, 1.1 * kFarRadiusFactor * radius, 1e-9);
}

TEST(EmbeddingFile, RoundTripsAndRejectsMalformedLines) {
  const TaskEmbedding embedding{"ab12", "Conv", {0.5, -2.0}};
  const std::string good = writeText("good.jsonl", embeddingLine(embedding) + "\n");
  const std::vector<TaskEmbedding> read = readEmbeddingFile(good);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].key, "ab12");
  EXPECT_EQ(read[0].anchor, "Conv");
  EXPECT_EQ(read[0].embedding, embedding.embedding);

  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"v":1,"key":"a","embedding":[1,2]})"
       "\n"
       R"({"v":1,"key":"b","embedding":[1]})",
       ":2: embedding of width 1, but the first line has width 2"},
      {R"({"v":1,"key":"a","embedding":[1]})"
       "\n"
       R"({"v":1,"key":"a","embedding":[2]})",
       ":2: task a appears twice"},
      {R"({"v":2,"key":"a","embedding":[1]})", ":1: embedding version 2"},
      {R"({"v":1,"key":"a","embedding":[]})", ":1: empty embedding"},
      {R"({"v":1,"embedding":[1]})", ":1: missing field 'key'"},
      {"", "no embeddings"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string path = writeText("bad.jsonl", text + "\n");
    try {
      readEmbeddingFile(path);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(expected), std::string::npos)
          << error.what() << " (expected '" << expected << "')";
    }
  }
}
