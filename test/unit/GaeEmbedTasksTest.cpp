// Task embeddings for clustering (gae/EmbedTasks.h): the GAE path embeds each task's graph as
// embedTaskGraph does, and the raw-feature baseline is the mean of standardised node features.
#include "MeasureTestSupport.h"
#include "features/TaskGraph.h"
#include "gae/EmbedTasks.h"
#include "gae/Training.h"

#include <gtest/gtest.h>

using namespace clustune;
using measure::testing::addReluTask;
using measure::testing::matmulTask;

TEST(GaeEmbedTasks, RawFeatureBaselineIsTheMeanOfStandardisedNodeFeatures) {
  const std::vector<graph::Task> tasks = {matmulTask(8, 16, 32), addReluTask(4, 4)};
  const std::vector<cluster::TaskEmbedding> embeddings = gae::rawFeatureEmbeddings(tasks);
  ASSERT_EQ(embeddings.size(), 2u);
  const std::vector<features::TaskGraph> graphs = gae::taskGraphsOf(tasks);
  // Standardise by hand over all nodes of both graphs.
  const std::size_t columns = graphs[0].featureCount;
  std::vector<double> mean(columns, 0), squares(columns, 0);
  std::size_t nodes = 0;
  for (const features::TaskGraph& graph : graphs)
    for (std::size_t node = 0; node < graph.nodeCount; ++node, ++nodes)
      for (std::size_t column = 0; column < columns; ++column) {
        const double value = graph.features[node * columns + column];
        mean[column] += value;
        squares[column] += value * value;
      }
  for (std::size_t task = 0; task < 2; ++task) {
    ASSERT_EQ(embeddings[task].embedding.size(), columns);
    EXPECT_EQ(embeddings[task].key, tasks[task].key);
    EXPECT_EQ(embeddings[task].anchor, tasks[task].anchor);
    for (std::size_t column = 0; column < columns; ++column) {
      const double average = mean[column] / static_cast<double>(nodes);
      const double variance = squares[column] / static_cast<double>(nodes) - average * average;
      const double deviation = variance > 1e-12 ? std::sqrt(variance) : 1.0;
      double expected = 0;
      const features::TaskGraph& graph = graphs[task];
      for (std::size_t node = 0; node < graph.nodeCount; ++node)
        expected += (graph.features[node * columns + column] - average) / deviation;
      expected /= static_cast<double>(graph.nodeCount);
      EXPECT_NEAR(embeddings[task].embedding[column], expected, 1e-4) << "column " << column;
    }
  }
}

TEST(GaeEmbedTasks, GaeEmbeddingsAreThoseOfEachTaskGraph) {
  const std::vector<graph::Task> tasks = {matmulTask(8, 16, 32), addReluTask(4, 4),
                                          matmulTask(64, 8, 8)};
  const std::vector<features::TaskGraph> graphs = gae::taskGraphsOf(tasks);
  gae::GaeTrainingOptions options;
  options.epochs = 3;
  gae::TrainedGae trained = gae::trainGae(gae::graphPointers(graphs), options);
  const gae::LoadedGae loaded{std::move(trained.model), std::move(trained.standardizer), {}};
  const std::vector<cluster::TaskEmbedding> embeddings = gae::embedTasks(loaded, tasks);
  ASSERT_EQ(embeddings.size(), 3u);
  for (std::size_t task = 0; task < tasks.size(); ++task) {
    const nn::Matrix expected =
        gae::embedTaskGraph(loaded.model, loaded.standardizer, graphs[task]);
    ASSERT_EQ(embeddings[task].embedding.size(), static_cast<std::size_t>(expected.size()));
    for (Eigen::Index column = 0; column < expected.size(); ++column)
      EXPECT_EQ(embeddings[task].embedding[static_cast<std::size_t>(column)], expected(0, column));
  }
  EXPECT_NE(embeddings[0].embedding, embeddings[2].embedding);
}
