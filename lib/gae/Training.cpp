// Batches are built once before the first epoch: the Â of a batch depends only on which graphs
// it holds, so rebuilding them every epoch would only cost time.
#include "gae/Training.h"

#include "nn/Adam.h"
#include "support/Error.h"
#include "support/Stopwatch.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

namespace clustune::gae {
namespace {

struct LinkScores {
  double auc = std::numeric_limits<double>::quiet_NaN();
  double averagePrecision = std::numeric_limits<double>::quiet_NaN();
};

LinkScores scoreLinks(const nn::Matrix& embeddings, const std::vector<std::pair<int, int>>& edges,
                      const std::vector<std::pair<int, int>>& nonEdges) {
  LinkScores result;
  if (edges.empty() || nonEdges.empty())
    return result;
  const std::vector<double> positive = pairScores(embeddings, edges);
  const std::vector<double> negative = pairScores(embeddings, nonEdges);
  result.auc = rocAuc(positive, negative);
  result.averagePrecision = averagePrecision(positive, negative);
  return result;
}

} // namespace

std::vector<double> pairScores(const nn::Matrix& nodeEmbeddings,
                               const std::vector<std::pair<int, int>>& pairs) {
  std::vector<double> scores;
  scores.reserve(pairs.size());
  for (const auto& [from, to] : pairs) {
    const double logit =
        nodeEmbeddings.row(from).cast<double>().dot(nodeEmbeddings.row(to).cast<double>());
    scores.push_back(1.0 / (1.0 + std::exp(-logit)));
  }
  return scores;
}

TrainedGae trainGae(const std::vector<const features::TaskGraph*>& graphs,
                    const GaeTrainingOptions& options,
                    const std::function<void(const GaeEpochReport&)>& onEpoch) {
  if (graphs.empty())
    throw Error("cannot train the graph autoencoder on no task graphs");
  if (options.epochs < 0 || options.graphsPerBatch < 0)
    throw Error("GAE epochs and graphs per batch must not be negative");
  const SteadyClock::time_point start = SteadyClock::now();
  FeatureStandardizer standardizer;
  standardizer.fit(graphs);
  EdgeSplitOptions splitOptions;
  splitOptions.seed = options.seed;
  EdgeSplit split = splitEdges(graphs, splitOptions);
  const std::set<std::pair<int, int>> heldOut = split.heldOutEdges();

  GaeArchitecture architecture;
  architecture.features = standardizer.featureCount();
  architecture.hidden = options.hidden;
  architecture.latent = options.latent;
  GraphAutoencoder model(architecture, options.seed, options.featureWeight);

  // All graphs with their training edges: the evaluation batch, and the only training batch
  // when graphsPerBatch is 0.
  const GraphBatch evaluationBatch = makeGraphBatch(graphs, standardizer, &heldOut);
  std::vector<GraphBatch> batches;
  Rng orderRng(options.seed ^ 0x9e3779b97f4a7c15ULL);
  if (options.graphsPerBatch > 0 && options.graphsPerBatch < static_cast<int>(graphs.size())) {
    std::vector<int> order(graphs.size());
    std::iota(order.begin(), order.end(), 0);
    orderRng.shuffle(order);
    for (std::size_t first = 0; first < order.size();
         first += static_cast<std::size_t>(options.graphsPerBatch)) {
      const std::size_t last =
          std::min(order.size(), first + static_cast<std::size_t>(options.graphsPerBatch));
      const std::vector<int> indices(order.begin() + static_cast<std::ptrdiff_t>(first),
                                     order.begin() + static_cast<std::ptrdiff_t>(last));
      std::vector<const features::TaskGraph*> members;
      for (const int index : indices)
        members.push_back(graphs[static_cast<std::size_t>(index)]);
      const std::set<std::pair<int, int>> removed = heldOutEdgesForBatch(split, indices);
      batches.push_back(makeGraphBatch(members, standardizer, &removed));
    }
  }
  std::vector<const GraphBatch*> schedule;
  if (batches.empty())
    schedule.push_back(&evaluationBatch);
  for (const GraphBatch& batch : batches)
    schedule.push_back(&batch);

  nn::AdamOptions adamOptions;
  adamOptions.learningRate = options.learningRate;
  adamOptions.weightDecay = 0;
  adamOptions.gradientClipNorm = 0;
  nn::Adam adam(model.parameters(), adamOptions);

  GaeTrainingReport report;
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    orderRng.shuffle(schedule);
    double lossSum = 0;
    for (const GraphBatch* batch : schedule) {
      const double loss = model.forward(*batch);
      if (!std::isfinite(loss))
        throw Error("GAE training loss became " + std::to_string(loss) + " in epoch " +
                    std::to_string(epoch));
      lossSum += loss;
      model.backward();
      adam.step();
    }
    GaeEpochReport epochReport;
    epochReport.epoch = epoch;
    epochReport.loss = lossSum / static_cast<double>(schedule.size());
    if (epoch == 1)
      report.firstEpochLoss = epochReport.loss;
    report.lastEpochLoss = epochReport.loss;
    report.epochs = epoch;
    if (onEpoch) {
      const LinkScores validation = scoreLinks(model.embedNodes(evaluationBatch),
                                               split.validationEdges, split.validationNonEdges);
      epochReport.validationAuc = validation.auc;
      epochReport.validationAveragePrecision = validation.averagePrecision;
      epochReport.seconds = secondsSince(start);
      onEpoch(epochReport);
    }
  }

  const nn::Matrix embeddings = model.embedNodes(evaluationBatch);
  const LinkScores test = scoreLinks(embeddings, split.testEdges, split.testNonEdges);
  report.testAuc = test.auc;
  report.testAveragePrecision = test.averagePrecision;
  report.reconstructionAuc = scoreLinks(embeddings, split.trainingEdges, split.testNonEdges).auc;
  report.featureReconstructionMse =
      featureReconstructionLoss(model.reconstructFeatures(embeddings), evaluationBatch.features)
          .value;
  report.seconds = secondsSince(start);
  return TrainedGae{std::move(model), std::move(standardizer), std::move(split), report};
}

} // namespace clustune::gae
