// All sums are taken in double: a list of 512 items has 130k pairs, and float accumulation would
// lose the small terms that decide the gradient late in training. Pair loops touch only
// per-item arrays prepared beforehand, so they allocate nothing. Non-finite inputs throw: a NaN
// loss would silently poison every parameter through Adam.
#include "nn/Loss.h"

#include "nn/LambdaRankPairs.h"
#include "runtime/ThreadPool.h"
#include "support/Error.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

namespace clustune::nn {
namespace {

constexpr double kMinimumProbability = 1e-10; // Tenset's eps for maxDCG and the sigmoid clamp
// A chunk of LambdaRank's pair loop has at least this many better items (64 × 512 pairs), and
// there are a fixed number of chunks at most, independent of the machine's thread count.
constexpr int kMinimumItemsPerChunk = 64;
constexpr int kMaximumChunks = 8;

void checkInputs(const char* loss, const Vector& predictions, const Vector& labels) {
  if (predictions.size() != labels.size())
    throw Error(std::string(loss) + ": " + std::to_string(predictions.size()) +
                " predictions but " + std::to_string(labels.size()) + " labels");
  for (Eigen::Index index = 0; index < predictions.size(); ++index) {
    if (!std::isfinite(predictions[index]))
      throw Error(std::string(loss) + ": non-finite prediction at index " + std::to_string(index));
    if (!std::isfinite(labels[index]))
      throw Error(std::string(loss) + ": non-finite label at index " + std::to_string(index));
  }
}

// log(1 + exp(x)) without overflow for large x or loss of precision for very negative x.
double softplus(double x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

double sigmoid(double x) {
  if (x >= 0)
    return 1.0 / (1.0 + std::exp(-x));
  const double exponential = std::exp(x);
  return exponential / (1.0 + exponential);
}

double discount(int rank) {
  return std::log2(1.0 + rank);
}

double gain(float label) {
  return std::exp2(std::max(static_cast<double>(label), 0.0)) - 1.0;
}

} // namespace

LossValue meanSquaredError(const Vector& predictions, const Vector& labels) {
  checkInputs("meanSquaredError", predictions, labels);
  const Eigen::Index count = predictions.size();
  LossValue result;
  result.gradient = Vector::Zero(count);
  if (count == 0)
    return result;
  double sum = 0;
  for (Eigen::Index index = 0; index < count; ++index) {
    const double difference = static_cast<double>(predictions[index]) - labels[index];
    sum += difference * difference;
    result.gradient[index] = static_cast<float>(2.0 * difference / static_cast<double>(count));
  }
  result.value = sum / static_cast<double>(count);
  return result;
}

LossValue lambdaRank(const Vector& predictions, const Vector& labels, float sigma) {
  checkInputs("lambdaRank", predictions, labels);
  const int count = static_cast<int>(predictions.size());
  LossValue result;
  result.gradient = Vector::Zero(count);
  if (count < 2)
    return result;

  // Items in the order of the predictions (best first); ties keep index order.
  std::vector<int> byPrediction(static_cast<std::size_t>(count));
  std::iota(byPrediction.begin(), byPrediction.end(), 0);
  std::stable_sort(byPrediction.begin(), byPrediction.end(),
                   [&](int left, int right) { return predictions[left] > predictions[right]; });

  std::vector<float> sortedLabels(labels.data(), labels.data() + count);
  std::sort(sortedLabels.begin(), sortedLabels.end(), std::greater<float>());
  double maximumDcg = 0;
  for (int position = 0; position < count; ++position)
    maximumDcg += gain(sortedLabels[static_cast<std::size_t>(position)]) / discount(position + 1);
  maximumDcg = std::max(maximumDcg, kMinimumProbability);

  // Per position in prediction order: the item's score, label, normalised gain and 1/D(rank).
  std::vector<double> score(static_cast<std::size_t>(count));
  std::vector<double> label(static_cast<std::size_t>(count));
  std::vector<double> normalisedGain(static_cast<std::size_t>(count));
  std::vector<double> inverseDiscount(static_cast<std::size_t>(count));
  for (int position = 0; position < count; ++position) {
    const int item = byPrediction[static_cast<std::size_t>(position)];
    const auto slot = static_cast<std::size_t>(position);
    score[slot] = predictions[item];
    label[slot] = labels[item];
    normalisedGain[slot] = gain(labels[item]) / maximumDcg;
    inverseDiscount[slot] = 1.0 / discount(position + 1);
  }
  const LambdaRankList list{score.data(),
                            label.data(),
                            normalisedGain.data(),
                            inverseDiscount.data(),
                            static_cast<std::size_t>(count),
                            sigma,
                            std::log(kMinimumProbability)};

  // The pairs are split by their better item into a fixed number of contiguous chunks, each
  // with its own sums, added in chunk order: the result does not depend on which thread ran
  // what.
  const int chunks = std::clamp(count / kMinimumItemsPerChunk, 1, kMaximumChunks);
  std::vector<double> chunkLogLikelihood(static_cast<std::size_t>(chunks), 0.0);
  std::vector<std::vector<double>> chunkGradient(static_cast<std::size_t>(chunks));
  runtime::ThreadPool::global().parallelFor(
      chunks, [&](std::int64_t firstChunk, std::int64_t lastChunk) {
        for (std::int64_t chunk = firstChunk; chunk < lastChunk; ++chunk) {
          std::vector<double>& gradient = chunkGradient[static_cast<std::size_t>(chunk)];
          gradient.assign(static_cast<std::size_t>(count), 0.0);
          chunkLogLikelihood[static_cast<std::size_t>(chunk)] = accumulateLambdaRankPairs(
              list, static_cast<std::size_t>(count * chunk / chunks),
              static_cast<std::size_t>(count * (chunk + 1) / chunks), gradient.data());
        }
      });
  // The loss is in bits: -Σ w · log2 p.
  const double inverseLn2 = 1.0 / std::log(2.0);
  double loss = 0;
  std::vector<double> scoreGradient(static_cast<std::size_t>(count), 0.0);
  for (int chunk = 0; chunk < chunks; ++chunk) {
    loss -= chunkLogLikelihood[static_cast<std::size_t>(chunk)] * inverseLn2;
    const std::vector<double>& partial = chunkGradient[static_cast<std::size_t>(chunk)];
    for (std::size_t position = 0; position < partial.size(); ++position)
      scoreGradient[position] += partial[position] * inverseLn2 * sigma;
  }
  result.value = loss;
  for (int position = 0; position < count; ++position)
    result.gradient[byPrediction[static_cast<std::size_t>(position)]] =
        static_cast<float>(scoreGradient[static_cast<std::size_t>(position)]);
  return result;
}

LossValue rankNet(const Vector& predictions, const Vector& labels, float sigma) {
  checkInputs("rankNet", predictions, labels);
  const Eigen::Index count = predictions.size();
  LossValue result;
  result.gradient = Vector::Zero(count);
  std::vector<double> scoreGradient(static_cast<std::size_t>(count), 0.0);
  double loss = 0;
  long pairs = 0;
  for (Eigen::Index better = 0; better < count; ++better) {
    for (Eigen::Index worse = 0; worse < count; ++worse) {
      if (!(labels[better] > labels[worse]))
        continue;
      const double margin = sigma * (static_cast<double>(predictions[better]) - predictions[worse]);
      loss += softplus(-margin);
      // d/d margin of softplus(-margin) is -σ(-margin).
      const double marginGradient = -sigmoid(-margin) * sigma;
      scoreGradient[static_cast<std::size_t>(better)] += marginGradient;
      scoreGradient[static_cast<std::size_t>(worse)] -= marginGradient;
      ++pairs;
    }
  }
  if (pairs == 0)
    return result;
  result.value = loss / static_cast<double>(pairs);
  for (Eigen::Index index = 0; index < count; ++index)
    result.gradient[index] = static_cast<float>(scoreGradient[static_cast<std::size_t>(index)] /
                                                static_cast<double>(pairs));
  return result;
}

} // namespace clustune::nn
