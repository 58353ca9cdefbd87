#include "gae/EmbedTasks.h"

#include "features/TaskGraph.h"

namespace clustune::gae {
namespace {

cluster::TaskEmbedding embeddingOf(const graph::Task& task, const nn::Matrix& row) {
  cluster::TaskEmbedding embedding;
  embedding.key = task.key;
  embedding.anchor = task.anchor;
  embedding.embedding.assign(row.data(), row.data() + row.size());
  return embedding;
}

} // namespace

std::vector<features::TaskGraph> taskGraphsOf(const std::vector<graph::Task>& tasks) {
  std::vector<features::TaskGraph> graphs;
  for (const graph::Task& task : tasks)
    graphs.push_back(features::taskGraph(task));
  return graphs;
}

std::vector<const features::TaskGraph*>
graphPointers(const std::vector<features::TaskGraph>& graphs) {
  std::vector<const features::TaskGraph*> pointers;
  for (const features::TaskGraph& graph : graphs)
    pointers.push_back(&graph);
  return pointers;
}

std::vector<cluster::TaskEmbedding> embedTasks(const LoadedGae& gae,
                                               const std::vector<graph::Task>& tasks) {
  std::vector<cluster::TaskEmbedding> embeddings;
  for (const graph::Task& task : tasks)
    embeddings.push_back(
        embeddingOf(task, embedTaskGraph(gae.model, gae.standardizer, features::taskGraph(task))));
  return embeddings;
}

std::vector<cluster::TaskEmbedding> rawFeatureEmbeddings(const std::vector<graph::Task>& tasks) {
  const std::vector<features::TaskGraph> graphs = taskGraphsOf(tasks);
  FeatureStandardizer standardizer;
  standardizer.fit(graphPointers(graphs));
  std::vector<cluster::TaskEmbedding> embeddings;
  for (std::size_t index = 0; index < tasks.size(); ++index) {
    const nn::Matrix mean = standardizer.standardize(graphs[index]).colwise().mean();
    embeddings.push_back(embeddingOf(tasks[index], mean));
  }
  return embeddings;
}

} // namespace clustune::gae
