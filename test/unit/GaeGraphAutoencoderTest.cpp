// The whole autoencoder: every parameter's gradient through the total loss against finite
// differences on a two-graph batch, block-diagonal batches against graphs embedded alone, the
// mean/max readout, and determinism per seed.
#include "GaeTestSupport.h"
#include "GradientCheckSupport.h"
#include "gae/GraphAutoencoder.h"
#include "support/Error.h"

#include <gtest/gtest.h>

using namespace clustune;
using namespace clustune::gae;
using namespace clustune::gae::testing;
using namespace clustune::nn::testing;

namespace {

struct TwoGraphs {
  features::TaskGraph path, star;
  FeatureStandardizer standardizer;

  explicit TwoGraphs(std::uint64_t seed, std::size_t featureCount = 3) {
    Rng rng(seed);
    path = randomFeatureGraph(4, featureCount, pathEdges(4), rng);
    star = randomFeatureGraph(5, featureCount, starEdges(5), rng);
    standardizer.fit({&path, &star});
  }
  std::vector<const features::TaskGraph*> both() const { return {&path, &star}; }
};

} // namespace

TEST(GaeGraphAutoencoder, AllParameterGradientsMatchFiniteDifferences) {
  const TwoGraphs graphs(1);
  const GraphBatch batch = makeGraphBatch(graphs.both(), graphs.standardizer);
  GraphAutoencoder model({3, 6, 4}, 11, 0.7f);
  model.forward(batch);
  model.backward();
  for (nn::Parameter* parameter : model.parameters()) {
    const nn::Matrix numerical = numericalGradient<nn::Matrix>(
        parameter->value, [&] { return GraphAutoencoder(model).forward(batch); }, 1e-2f);
    EXPECT_TRUE(gradientsAgree(parameter->gradient, numerical)) << parameter->name;
  }
}

TEST(GaeGraphAutoencoder, LossIsStructurePlusWeightedFeatureLoss) {
  const TwoGraphs graphs(2);
  const GraphBatch batch = makeGraphBatch(graphs.both(), graphs.standardizer);
  GraphAutoencoder model({3, 8, 4}, 3, 2.5f);
  const double total = model.forward(batch);
  const nn::Matrix embeddings = model.embedNodes(batch);
  const double structure = structureLoss(embeddings, batch.graphOffsets, batch.edges).value;
  const double feature =
      featureReconstructionLoss(model.reconstructFeatures(embeddings), batch.features).value;
  EXPECT_NEAR(model.lastLoss().structure, structure, 1e-6);
  EXPECT_NEAR(model.lastLoss().feature, feature, 1e-6);
  EXPECT_NEAR(total, structure + 2.5 * feature, 1e-6);
}

TEST(GaeGraphAutoencoder, BlockDiagonalBatchGivesSameEmbeddingsAsSeparateGraphs) {
  const TwoGraphs graphs(3);
  const GraphAutoencoder model({3, 8, 4}, 5);
  const nn::Matrix together = model.embedNodes(makeGraphBatch(graphs.both(), graphs.standardizer));
  const nn::Matrix path = model.embedNodes(makeGraphBatch({&graphs.path}, graphs.standardizer));
  const nn::Matrix star = model.embedNodes(makeGraphBatch({&graphs.star}, graphs.standardizer));
  EXPECT_TRUE(together.topRows(4).isApprox(path, 1e-5f));
  EXPECT_TRUE(together.bottomRows(5).isApprox(star, 1e-5f));
}

TEST(GaeGraphAutoencoder, GraphEmbeddingConcatenatesMeanAndMax) {
  nn::Matrix nodes(3, 2);
  nodes << 1, -4, //
      2, -1,      //
      6, -1;
  const nn::Matrix embedding = GraphAutoencoder::graphEmbedding(nodes);
  ASSERT_EQ(embedding.rows(), 1);
  ASSERT_EQ(embedding.cols(), 4);
  EXPECT_FLOAT_EQ(embedding(0, 0), 3.0f);
  EXPECT_FLOAT_EQ(embedding(0, 1), -2.0f);
  EXPECT_FLOAT_EQ(embedding(0, 2), 6.0f);
  EXPECT_FLOAT_EQ(embedding(0, 3), -1.0f);
}

TEST(GaeGraphAutoencoder, EmbeddingsAreDeterministicPerSeed) {
  const TwoGraphs graphs(4);
  const GraphAutoencoder first({3, 8, 4}, 21), second({3, 8, 4}, 21), other({3, 8, 4}, 22);
  const nn::Matrix embedding = embedTaskGraph(first, graphs.standardizer, graphs.star);
  EXPECT_EQ(embedding.cols(), 8);
  EXPECT_TRUE(embedding == embedTaskGraph(second, graphs.standardizer, graphs.star));
  EXPECT_FALSE(embedding == embedTaskGraph(other, graphs.standardizer, graphs.star));
}

TEST(GaeGraphAutoencoder, ParametersAreNamedAndRefusesBadSizes) {
  GraphAutoencoder model({3, 8, 4}, 0);
  std::vector<std::string> names;
  for (const nn::Parameter* parameter : model.parameters())
    names.push_back(parameter->name);
  EXPECT_EQ(names, (std::vector<std::string>{"encoder.0.weight", "encoder.1.weight",
                                             "feature_decoder.weight", "feature_decoder.bias"}));
  EXPECT_THROW(GraphAutoencoder({0, 8, 4}, 0), Error);
  EXPECT_THROW(GraphAutoencoder({3, 8, 0}, 0), Error);
}
