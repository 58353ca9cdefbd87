// clustune-cluster: groups task embeddings with K-means (K given, or chosen by the best mean
// silhouette over a range) into clusters.json, whose clusters get their own cost models; or
// assigns new embeddings to the nearest centroid (--assign), flagging those farther than
// 1.5 × the cluster's radius. --by-anchor is FamilySeer's grouping by anchor op, the baseline;
// --random-like deals the tasks at random into clusters of another clustering's sizes, the
// control that must lose. docs/clustering.md.
//   clustune-cluster embeddings.jsonl [--k K | --k-range 2:16] [--seed S] -o clusters.json
//   clustune-cluster --assign clusters.json embeddings.jsonl
//   clustune-cluster embeddings.jsonl --random-like clusters.json [--seed S] -o random.json
#include "cluster/Clustering.h"
#include "support/Error.h"
#include "support/ToolMain.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

using namespace clustune;

namespace {

std::pair<int, int> parseKRange(const std::string& text) {
  const auto colon = text.find(':');
  try {
    if (colon != std::string::npos) {
      std::size_t used = 0;
      const int low = std::stoi(text.substr(0, colon), &used);
      if (used == colon) {
        const std::string rest = text.substr(colon + 1);
        const int high = std::stoi(rest, &used);
        if (used == rest.size() && low >= 2 && low <= high)
          return {low, high};
      }
    }
  } catch (const std::exception&) {
  }
  throw Error("--k-range must be LOW:HIGH with 2 <= LOW <= HIGH, got '" + text + "'");
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"Cluster task embeddings with K-means, or assign new ones to clusters."};
  CommonOptions common;
  std::string embeddingsPath, outputPath, assignPath, randomLikePath, kRange = "2:16";
  cluster::ClusteringOptions options;
  bool byAnchor = false;
  app.add_option("embeddings", embeddingsPath, "embeddings.jsonl from clustune-embed ('-': stdin)")
      ->required();
  app.add_option("-o,--output", outputPath, "clusters.json to write");
  app.add_option("--k", options.k, "Number of clusters (default: chosen by silhouette)");
  app.add_option("--k-range", kRange, "Range of K to choose from by the mean silhouette")
      ->capture_default_str();
  app.add_option("--restarts", options.restarts, "k-means++ restarts per K")->capture_default_str();
  app.add_flag("--by-anchor", byAnchor, "Group by anchor op instead (FamilySeer's baseline)");
  app.add_option(
      "--random-like", randomLikePath,
      "Deal the tasks at random into clusters of this clusters.json's sizes (a control)");
  app.add_option("--assign", assignPath,
                 "Assign the embeddings to the clusters of this clusters.json instead");
  addCommonOptions(app, common, /*withSeed=*/true);

  return runTool(app, common, argc, argv, [&] {
    const std::vector<cluster::TaskEmbedding> embeddings =
        cluster::readEmbeddingFile(embeddingsPath);
    if (!assignPath.empty()) {
      if (!outputPath.empty() || byAnchor || options.k != 0 || !randomLikePath.empty())
        throw Error(
            "--assign takes no -o, --k, --by-anchor or --random-like: it prints assignments");
      const cluster::ClusterFile clusters = cluster::readClusterFile(assignPath);
      std::size_t far = 0;
      for (const cluster::Assignment& assignment :
           cluster::assignEmbeddings(clusters, embeddings)) {
        far += assignment.far;
        std::cout << nlohmann::ordered_json{{"key", assignment.key},
                                            {"cluster", assignment.cluster},
                                            {"distance", assignment.distance},
                                            {"far", assignment.far}}
                         .dump()
                  << '\n';
      }
      spdlog::info("{} embeddings assigned, {} farther than {} × their cluster's radius",
                   embeddings.size(), far, cluster::kFarRadiusFactor);
      return 0;
    }
    if (outputPath.empty())
      throw Error("give -o clusters.json (or --assign clusters.json)");
    if (options.k < 0 || options.restarts < 1)
      throw Error("--k must be positive and --restarts at least 1");
    if (!randomLikePath.empty() && (byAnchor || options.k != 0))
      throw Error("--random-like takes its clusters' sizes from the file: no --k or --by-anchor");
    std::tie(options.minK, options.maxK) = parseKRange(kRange);
    options.seed = common.seed;
    const cluster::ClusteringResult result =
        !randomLikePath.empty()
            ? cluster::clusterAtRandom(embeddings, cluster::readClusterFile(randomLikePath),
                                       common.seed)
        : byAnchor ? cluster::clusterByAnchor(embeddings)
                   : cluster::clusterEmbeddings(embeddings, options);
    cluster::writeClusterFile(outputPath, result.clusters);
    nlohmann::ordered_json summary;
    summary["output"] = outputPath;
    summary["method"] = !randomLikePath.empty() ? "random" : byAnchor ? "anchor" : "kmeans";
    summary["k"] = result.clusters.k;
    summary["silhouette"] = result.clusters.silhouette;
    summary["inertia"] = result.inertia;
    nlohmann::ordered_json tried = nlohmann::ordered_json::array();
    for (const auto& [k, silhouette] : result.silhouettes)
      tried.push_back({{"k", k}, {"silhouette", silhouette}});
    summary["silhouettes"] = tried;
    nlohmann::ordered_json sizes = nlohmann::ordered_json::array();
    for (const cluster::ClusterInfo& info : result.clusters.clusters)
      sizes.push_back(info.size);
    summary["sizes"] = sizes;
    std::cout << summary.dump() << '\n';
    return 0;
  });
}
