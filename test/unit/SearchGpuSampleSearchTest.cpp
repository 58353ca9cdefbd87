// The GPU search strategy (search/GpuSampleSearch.h): it proposes distinct GPU schedules not
// measured before, as many as asked while the space has them; the model's favourites make up
// all but the random share; schedules transferred from sibling tasks open the round; and a
// space whose every schedule was measured yields nothing.
#include "SearchTestSupport.h"
#include "search/GpuSampleSearch.h"

#include <gtest/gtest.h>
#include <set>
#include <unordered_set>

using namespace clustune;
using namespace clustune::search;
using namespace clustune::search::testing;

namespace {

// Prefers larger auto_unroll_max_step: a known preference the proposals must follow.
class UnrollModel final : public CostModel {
public:
  std::vector<double> predict(const graph::Task&,
                              std::span<const Candidate* const> candidates) override {
    std::vector<double> scores;
    for (const Candidate* candidate : candidates)
      scores.push_back(unroll(candidate->steps));
    return scores;
  }
  void update(std::span<const Measurement>, UpdateBudget) override {}
  std::string name() const override { return "unroll"; }

  static double unroll(const std::vector<schedule::Step>& steps) {
    double total = 0;
    for (const schedule::Step& step : steps)
      if (const auto* pragma = std::get_if<schedule::PragmaStep>(&step))
        total += pragma->autoUnrollMaxStep;
    return total;
  }
};

TEST(GpuSampleSearch, ProposesDistinctUnmeasuredGpuSchedulesThatFollowTheModel) {
  const SearchTask task = makeSearchTask(matmulTask(64, 64, 64));
  GpuSampleSearch search({.pool = 128, .randomShare = 0.25});
  UnrollModel model;
  Rng rng(3);
  const std::vector<Candidate> proposed = search.propose(task, {}, model, 16, rng);
  ASSERT_EQ(proposed.size(), 16u);
  std::set<std::string> texts;
  for (const Candidate& candidate : proposed) {
    texts.insert(candidate.text);
    EXPECT_NE(candidate.text.find("threadIdx.x"), std::string::npos) << candidate.text;
  }
  EXPECT_EQ(texts.size(), 16u);
  // 12 by the model: the largest unroll step there is (1024), before the 4 random picks.
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(UnrollModel::unroll(proposed[i].steps), 1024) << proposed[i].text;

  // Measured schedules are never proposed again.
  std::unordered_set<std::string> measured(texts.begin(), texts.end());
  Rng again(3);
  for (const Candidate& candidate : search.propose(task, {.measured = &measured}, model, 16, again))
    EXPECT_FALSE(measured.count(candidate.text)) << candidate.text;
}

TEST(GpuSampleSearch, TransferredSchedulesOpenTheRound) {
  const SearchTask task = makeSearchTask(matmulTask(64, 64, 64));
  std::vector<Candidate> transferred;
  for (std::vector<schedule::Step>& steps : sampleGpu(task.workload, 4, 9, {}))
    transferred.push_back(*makeCandidate(task.workload, std::move(steps)));
  GpuSampleSearch search({.pool = 128});
  UnrollModel model;
  Rng rng(5);
  const std::vector<Candidate> proposed =
      search.propose(task, {.transferred = transferred}, model, 16, rng);
  ASSERT_EQ(proposed.size(), 16u);
  // round(0.125 × 16) = 2, in the order given.
  EXPECT_EQ(proposed[0].text, transferred[0].text);
  EXPECT_EQ(proposed[1].text, transferred[1].text);
  std::set<std::string> texts;
  for (const Candidate& candidate : proposed)
    EXPECT_TRUE(texts.insert(candidate.text).second) << candidate.text;
}

TEST(GpuSampleSearch, AnExhaustedSpaceYieldsNothing) {
  // Relu(A + B) over [2, 4]: few ways to tile eight elements.
  const SearchTask task = makeSearchTask(addReluTask({2, 4}));
  GpuSampleSearch search({.pool = 256});
  UnrollModel model;
  Rng rng(1);
  std::unordered_set<std::string> measured;
  int rounds = 0;
  for (; rounds < 20; ++rounds) {
    const std::vector<Candidate> proposed =
        search.propose(task, {.measured = &measured}, model, 1000, rng);
    if (proposed.empty())
      break;
    for (const Candidate& candidate : proposed)
      EXPECT_TRUE(measured.insert(candidate.text).second) << candidate.text;
  }
  EXPECT_LT(rounds, 20) << measured.size() << " schedules and still proposing";
  EXPECT_GT(measured.size(), 1u);
}

} // namespace
