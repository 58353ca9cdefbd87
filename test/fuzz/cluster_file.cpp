// libFuzzer harness: clusters.json (cluster::readClusterFile), then a nearest-cluster query
// with an embedding of the file's own width, which trusts what the reader accepted.
#include "FuzzInput.h"
#include "cluster/ClusterFile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return clustune::fuzz::readAsFile(data, size, [](const std::string& path) {
    const clustune::cluster::ClusterFile clusters = clustune::cluster::readClusterFile(path);
    if (!clusters.centroids.empty())
      clustune::cluster::nearestCluster(
          clusters, std::vector<double>(clusters.centroids.front().size(), 0.5));
  });
}
