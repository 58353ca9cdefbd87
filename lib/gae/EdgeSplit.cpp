// Non-edges are drawn by rejection (a graph with probability proportional to its node pairs,
// then two of its nodes), which is uniform over within-graph pairs and needs no list of all
// pairs; when non-edges are scarce the pairs are listed and shuffled instead, so that the
// rejection loop never runs long.
#include "gae/EdgeSplit.h"

#include "gae/GraphBatch.h"
#include "support/Error.h"
#include "support/Random.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace clustune::gae {
namespace {

using Pair = std::pair<int, int>;

std::vector<Pair> drawNonEdges(const std::vector<int>& offsets, const std::set<Pair>& edges,
                               std::set<Pair>& taken, std::size_t count, Rng& rng) {
  std::vector<Pair> drawn;
  if (count == 0)
    return drawn;
  std::vector<long long> cumulativePairs{0}; // unordered pairs i<j per graph, running total
  for (std::size_t graph = 0; graph + 1 < offsets.size(); ++graph) {
    const long long nodes = offsets[graph + 1] - offsets[graph];
    cumulativePairs.push_back(cumulativePairs.back() + nodes * (nodes - 1) / 2);
  }
  const long long allPairs = cumulativePairs.back();
  const long long available =
      allPairs - static_cast<long long>(edges.size()) - static_cast<long long>(taken.size());
  if (available < static_cast<long long>(count))
    throw Error("the task graphs have " + std::to_string(std::max(0LL, available)) +
                " unused non-adjacent node pairs, too few to draw " + std::to_string(count) +
                " negative examples");
  if (available < 4 * static_cast<long long>(count)) {
    std::vector<Pair> candidates;
    for (std::size_t graph = 0; graph + 1 < offsets.size(); ++graph)
      for (int i = offsets[graph]; i < offsets[graph + 1]; ++i)
        for (int j = i + 1; j < offsets[graph + 1]; ++j)
          if (edges.count({i, j}) == 0 && taken.count({i, j}) == 0)
            candidates.emplace_back(i, j);
    rng.shuffle(candidates);
    candidates.resize(count);
    taken.insert(candidates.begin(), candidates.end());
    return candidates;
  }
  while (drawn.size() < count) {
    const long long pick =
        static_cast<long long>(rng.uniformInt(static_cast<std::uint64_t>(allPairs)));
    const std::size_t graph = static_cast<std::size_t>(
        std::upper_bound(cumulativePairs.begin(), cumulativePairs.end(), pick) -
        cumulativePairs.begin() - 1);
    const int offset = offsets[graph];
    const auto nodes = static_cast<std::uint64_t>(offsets[graph + 1] - offset);
    const int first = offset + static_cast<int>(rng.uniformInt(nodes));
    const int second = offset + static_cast<int>(rng.uniformInt(nodes));
    if (first == second)
      continue;
    const Pair pair{std::min(first, second), std::max(first, second)};
    if (edges.count(pair) != 0 || !taken.insert(pair).second)
      continue;
    drawn.push_back(pair);
  }
  return drawn;
}

} // namespace

std::set<std::pair<int, int>> EdgeSplit::heldOutEdges() const {
  std::set<Pair> result(validationEdges.begin(), validationEdges.end());
  result.insert(testEdges.begin(), testEdges.end());
  return result;
}

EdgeSplit splitEdges(const std::vector<const features::TaskGraph*>& graphs,
                     const EdgeSplitOptions& options) {
  EdgeSplit split;
  split.graphOffsets = graphOffsetsOf(graphs);
  std::vector<Pair> edges;
  for (std::size_t graph = 0; graph < graphs.size(); ++graph) {
    const int offset = split.graphOffsets[graph];
    const int nodes = static_cast<int>(graphs[graph]->nodeCount);
    for (const auto& [from, to] : graphs[graph]->edges) {
      if (!(0 <= from && from < to && to < nodes))
        throw Error("task graph '" + graphs[graph]->anchor + "' has the edge (" +
                    std::to_string(from) + ", " + std::to_string(to) +
                    "), not (smaller, larger) within its " + std::to_string(nodes) + " nodes");
      edges.emplace_back(offset + from, offset + to);
    }
  }
  const std::set<Pair> edgeSet(edges.begin(), edges.end());
  if (edgeSet.size() != edges.size())
    throw Error("the task graphs list an edge twice");

  Rng rng(options.seed);
  rng.shuffle(edges);
  const std::size_t total = edges.size();
  auto quota = [&](double fraction) {
    auto size = static_cast<std::size_t>(std::floor(fraction * static_cast<double>(total)));
    if (total >= 20)
      size = std::max<std::size_t>(size, 1);
    return size;
  };
  const std::size_t testCount = quota(options.testFraction);
  const std::size_t validationCount = quota(options.validationFraction);
  if (testCount + validationCount > total)
    throw Error("cannot hold out " + std::to_string(testCount + validationCount) + " of " +
                std::to_string(total) + " edges");

  // First pass: only edges whose ends both keep another edge; second pass: the rest, in order.
  std::vector<int> degree(static_cast<std::size_t>(split.graphOffsets.back()), 0);
  for (const auto& [from, to] : edges) {
    ++degree[static_cast<std::size_t>(from)];
    ++degree[static_cast<std::size_t>(to)];
  }
  std::vector<bool> heldOut(total, false);
  std::vector<Pair> chosen;
  const std::size_t wanted = testCount + validationCount;
  for (int pass = 0; pass < 2 && chosen.size() < wanted; ++pass) {
    for (std::size_t index = 0; index < total && chosen.size() < wanted; ++index) {
      if (heldOut[index])
        continue;
      const auto [from, to] = edges[index];
      if (pass == 0 &&
          (degree[static_cast<std::size_t>(from)] < 2 || degree[static_cast<std::size_t>(to)] < 2))
        continue;
      heldOut[index] = true;
      --degree[static_cast<std::size_t>(from)];
      --degree[static_cast<std::size_t>(to)];
      chosen.push_back(edges[index]);
    }
  }
  split.testEdges.assign(chosen.begin(), chosen.begin() + static_cast<std::ptrdiff_t>(testCount));
  split.validationEdges.assign(chosen.begin() + static_cast<std::ptrdiff_t>(testCount),
                               chosen.end());
  for (std::size_t index = 0; index < total; ++index)
    if (!heldOut[index])
      split.trainingEdges.push_back(edges[index]);
  std::sort(split.trainingEdges.begin(), split.trainingEdges.end());

  std::set<Pair> takenNonEdges;
  split.testNonEdges = drawNonEdges(split.graphOffsets, edgeSet, takenNonEdges, testCount, rng);
  split.validationNonEdges =
      drawNonEdges(split.graphOffsets, edgeSet, takenNonEdges, validationCount, rng);
  return split;
}

std::set<std::pair<int, int>> heldOutEdgesForBatch(const EdgeSplit& split,
                                                   const std::vector<int>& graphIndices) {
  const std::vector<int>& offsets = split.graphOffsets;
  // Where each chosen graph's first node lands in the batch.
  std::vector<int> batchOffset(offsets.size() - 1, -1);
  int next = 0;
  for (const int graph : graphIndices) {
    assert(0 <= graph && graph + 1 < static_cast<int>(offsets.size()));
    batchOffset[static_cast<std::size_t>(graph)] = next;
    next += offsets[static_cast<std::size_t>(graph) + 1] - offsets[static_cast<std::size_t>(graph)];
  }
  std::set<Pair> result;
  for (const auto& [from, to] : split.heldOutEdges()) {
    const auto graph = static_cast<std::size_t>(
        std::upper_bound(offsets.begin(), offsets.end(), from) - offsets.begin() - 1);
    if (batchOffset[graph] < 0)
      continue;
    const int shift = batchOffset[graph] - offsets[graph];
    result.emplace(from + shift, to + shift);
  }
  return result;
}

namespace {

// Every score with whether it belongs to a positive pair.
std::vector<std::pair<double, bool>> labelledScores(const std::vector<double>& positiveScores,
                                                    const std::vector<double>& negativeScores) {
  std::vector<std::pair<double, bool>> scored;
  for (const double score : positiveScores)
    scored.emplace_back(score, true);
  for (const double score : negativeScores)
    scored.emplace_back(score, false);
  return scored;
}

} // namespace

double rocAuc(const std::vector<double>& positiveScores,
              const std::vector<double>& negativeScores) {
  if (positiveScores.empty() || negativeScores.empty())
    throw Error("ROC AUC needs at least one positive and one negative score");
  // Mann-Whitney: the rank sum of the positives, with tied scores sharing their average rank.
  std::vector<std::pair<double, bool>> scored = labelledScores(positiveScores, negativeScores);
  std::sort(scored.begin(), scored.end(),
            [](const auto& left, const auto& right) { return left.first < right.first; });
  double positiveRankSum = 0;
  for (std::size_t start = 0; start < scored.size();) {
    std::size_t end = start;
    while (end < scored.size() && scored[end].first == scored[start].first)
      ++end;
    const double averageRank = 0.5 * static_cast<double>(start + 1 + end); // ranks from 1
    for (std::size_t index = start; index < end; ++index)
      if (scored[index].second)
        positiveRankSum += averageRank;
    start = end;
  }
  const double positives = static_cast<double>(positiveScores.size());
  const double negatives = static_cast<double>(negativeScores.size());
  return (positiveRankSum - positives * (positives + 1) / 2) / (positives * negatives);
}

double averagePrecision(const std::vector<double>& positiveScores,
                        const std::vector<double>& negativeScores) {
  if (positiveScores.empty())
    throw Error("average precision needs at least one positive score");
  std::vector<std::pair<double, bool>> scored = labelledScores(positiveScores, negativeScores);
  std::sort(scored.begin(), scored.end(),
            [](const auto& left, const auto& right) { return left.first > right.first; });
  const double positives = static_cast<double>(positiveScores.size());
  double truePositives = 0, predicted = 0, previousRecall = 0, result = 0;
  for (std::size_t start = 0; start < scored.size();) {
    std::size_t end = start;
    for (; end < scored.size() && scored[end].first == scored[start].first; ++end) {
      predicted += 1;
      if (scored[end].second)
        truePositives += 1;
    }
    const double recall = truePositives / positives;
    result += (recall - previousRecall) * (truePositives / predicted);
    previousRecall = recall;
    start = end;
  }
  return result;
}

} // namespace clustune::gae
