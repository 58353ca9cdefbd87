// Sketch generation, random annotation and sampling (lib/search): the SSRSRS structure of a
// tiled reduction, the fused epilogue of a convolution, random compute locations, and that
// sampled schedules are distinct, deterministic per seed, prefix-stable in the sample count,
// valid, and compute what the te reference interpreter computes.
#include "ScheduleTestSupport.h"
#include "SearchTestSupport.h"
#include "graph/Task.h"
#include "search/RandomAnnotation.h"
#include "search/Sample.h"
#include "search/Sketch.h"
#include "support/Error.h"
#include "te/Interpreter.h"
#include "te/LowerTask.h"

#include <gtest/gtest.h>
#include <set>

using namespace clustune;
using namespace clustune::search;
using namespace clustune::search::testing;
using schedule::testing::allClose;
using schedule::testing::randomInputs;
using schedule::testing::runState;

namespace {

// The checks every task's samples pass: the requested count, distinct JSON, replay, lowering
// and (for every `checkEvery`-th sample) the values of the reference interpreter.
void expectValidSamples(const graph::Task& task, int checkEvery) {
  const te::Workload workload = te::lowerTask(task);
  const std::vector<Steps> samples = sample(task, 50, 1, {.cores = 4});
  ASSERT_EQ(samples.size(), 50u);
  std::set<std::string> distinct;
  for (std::size_t k = 0; k < samples.size(); ++k) {
    distinct.insert(json(samples[k]));
    const schedule::State state = schedule::replay(workload, samples[k]);
    EXPECT_NO_THROW(schedule::lower(workload, state, "f"));
    if (k % checkEvery == 0) {
      EXPECT_TRUE(matchesReference(workload, samples[k])) << "sample " << k;
    }
  }
  EXPECT_EQ(distinct.size(), samples.size());
}

int findStage(const schedule::State& state, bool reduction, bool output) {
  for (std::size_t k = 0; k < state.stages().size(); ++k) {
    const schedule::Stage& stage = state.stages()[k];
    if (stage.tensor->isReduction() == reduction && stage.isOutput() == output)
      return static_cast<int>(k);
  }
  return -1;
}

TEST(SearchSketch, MatmulIsTiledSSRSRSWithOrWithoutACacheWrite) {
  const te::Workload workload = te::lowerTask(matmulTask(32, 48, 64));
  const std::vector<Sketch> sketches = generateSketches(workload);
  // Plain tiling, then AddCacheWrite with the cache fused at level 1 or 2 of the copy; 32 x 48
  // outputs are more than 64 terms each, so no rfactor. The three again with B packed.
  ASSERT_EQ(sketches.size(), 6u);
  const Sketch& sketch = sketches[0];
  EXPECT_EQ(sketch.description, "tile(0)");
  // k, j, i from the innermost outwards; i at 0..3, j at 4..7, k at 8..9.
  ASSERT_EQ(sketch.steps.size(), 4u);
  EXPECT_EQ(std::get<schedule::SplitStep>(sketch.steps[0]).factors,
            std::vector<std::int64_t>(1, 0));
  EXPECT_EQ(std::get<schedule::SplitStep>(sketch.steps[1]).factors,
            std::vector<std::int64_t>(3, 0));
  const std::vector<int> ssrsrs = {0, 4, 1, 5, 8, 2, 6, 9, 3, 7};
  EXPECT_EQ(std::get<schedule::ReorderStep>(sketch.steps[3]).order, ssrsrs);
  ASSERT_EQ(sketch.tiles.size(), 3u);
  EXPECT_EQ(sketch.tiles[0].extent, 64);

  // With any factors filled in, the loops are S0 S1 R0 S2 R1 S3 over (i, j) and k.
  Steps filled = sketch.steps;
  for (const TileSplit& tile : sketch.tiles)
    std::get<schedule::SplitStep>(filled[tile.step]).factors =
        std::vector<std::int64_t>(tile.parts - 1, 2);
  const schedule::State state = schedule::replay(workload, filled);
  const schedule::Stage& stage = state.stages()[0];
  ASSERT_EQ(stage.loops.size(), 10u);
  std::string kinds;
  for (std::size_t position = 0; position < stage.loops.size(); ++position)
    kinds += stage.loop(position).kind == schedule::IteratorKind::Spatial ? 'S' : 'R';
  EXPECT_EQ(kinds, "SSSSRSSRSS");

  // The cache_write sketches: the cache (stage 0) tiled SSRSRS and computed at the copy
  // (stage 1) at the last loop of its first or second tile level.
  for (int level : {1, 2}) {
    const Sketch& cached = sketches[level];
    EXPECT_EQ(cached.description,
              "cache_write(0) tile(0) fuse(0->1@" + std::to_string(level) + ")");
    EXPECT_EQ(cached.steps.front(), schedule::Step{schedule::CacheWriteStep{.stage = 0}});
    EXPECT_EQ(std::get<schedule::ReorderStep>(cached.steps[4]).order, ssrsrs);
    EXPECT_EQ(cached.steps.back(),
              (schedule::Step{schedule::ComputeAtStep{
                  .stage = 0, .targetStage = 1, .targetIterator = 2 * level - 1}}));
    EXPECT_EQ(cached.tiledStages, std::vector<int>{0});
  }

  // B[k, j] is read along the tile's columns and reused across its rows: it is packed per R0
  // iteration into a copy (stage 0) computed at the tiled stage's last R0 loop (after the 2 + 2
  // spatial loops of S0 and S1, position 4), which renumbers the tiled stage.
  for (int plain = 0; plain < 3; ++plain) {
    const Sketch& packed = sketches[3 + plain];
    EXPECT_EQ(packed.description, sketches[plain].description + " pack(input1->1)");
    ASSERT_EQ(packed.steps.size(), sketches[plain].steps.size() + 2);
    const int tiledBefore = sketches[plain].tiledStages.front();
    EXPECT_EQ(packed.steps[packed.steps.size() - 2],
              (schedule::Step{schedule::CacheReadStep{
                  .stage = -1, .input = 1, .scope = "local", .readers = {tiledBefore}}}));
    EXPECT_EQ(packed.steps.back(),
              (schedule::Step{schedule::ComputeAtStep{
                  .stage = 0, .targetStage = tiledBefore + 1, .targetIterator = 4}}));
    EXPECT_EQ(packed.tiledStages, std::vector<int>{tiledBefore + 1});
  }
  int packedSamples = 0;
  for (const Steps& steps : sample(workload, 30, 4)) {
    packedSamples += std::any_of(steps.begin(), steps.end(), [](const schedule::Step& step) {
      return std::holds_alternative<schedule::CacheReadStep>(step);
    });
    EXPECT_TRUE(matchesReference(workload, steps));
  }
  EXPECT_GT(packedSamples, 5);

  // Every sampled schedule starts from one of them.
  for (const Steps& steps : sample(workload, 20, 3)) {
    const bool cached = std::holds_alternative<schedule::CacheWriteStep>(steps.at(0));
    EXPECT_EQ(std::get<schedule::ReorderStep>(steps.at(cached ? 4 : 3)).order, ssrsrs);
  }
}

TEST(SearchSketch, ConvolutionEpilogueFusesTheReductionAtLevelOneOrTwo) {
  const te::Workload workload = te::lowerTask(convBiasReluTask());
  const schedule::State initial = schedule::initialState(workload);
  const int conv = findStage(initial, true, false);
  const int relu = findStage(initial, false, true);
  ASSERT_GE(conv, 0);
  ASSERT_GE(relu, 0);
  const int pad = 0;
  ASSERT_EQ(initial.stages()[pad].tensor->body->kind, te::ExprKind::Select);
  const std::vector<Sketch> sketches = generateSketches(workload);
  // Fused at level 1 or 2, with the padding inlined or computed per tile.
  ASSERT_EQ(sketches.size(), 4u);
  std::set<std::pair<int, bool>> variants;
  for (const Sketch& sketch : sketches) {
    const auto fusion =
        std::find_if(sketch.steps.begin(), sketch.steps.end(), [&](const schedule::Step& step) {
          const auto* at = std::get_if<schedule::ComputeAtStep>(&step);
          return at && at->stage == conv;
        });
    ASSERT_NE(fusion, sketch.steps.end());
    const auto& computeAt = std::get<schedule::ComputeAtStep>(*fusion);
    EXPECT_EQ(computeAt.targetStage, relu);
    const bool padInlined =
        std::find(sketch.steps.begin(), sketch.steps.end(),
                  schedule::Step{schedule::ComputeInlineStep{.stage = pad}}) != sketch.steps.end();
    if (!padInlined) {
      // At the conv's last S1 loop: after the 4 spatial loops of S0 and the 4 of S1.
      EXPECT_EQ(sketch.steps.back(), (schedule::Step{schedule::ComputeAtStep{
                                         .stage = pad, .targetStage = conv, .targetIterator = 7}}));
      EXPECT_NE(sketch.description.find("pad_at(0->1)"), std::string::npos) << sketch.description;
    }
    variants.insert({computeAt.targetIterator, padInlined});
    // The bias stage is inlined, the conv is the only tiled stage.
    EXPECT_EQ(sketch.tiledStages, std::vector<int>{conv});
  }
  // Level 1 is the last of the 4 outer loops, level 2 the last of the next 4.
  EXPECT_EQ(variants,
            (std::set<std::pair<int, bool>>{{3, true}, {7, true}, {3, false}, {7, false}}));

  std::set<int> levelsSeen;
  int padsPerTile = 0;
  for (const Steps& steps : sample(workload, 30, 5)) {
    const schedule::State state = schedule::replay(workload, steps);
    const schedule::ComputeLocation& padLocation = state.stages()[pad].location;
    if (!state.stages()[pad].isInlined()) {
      ++padsPerTile;
      EXPECT_EQ(padLocation.kind, schedule::ComputeLocationKind::At);
      EXPECT_EQ(padLocation.targetStage, conv);
    }
    const schedule::ComputeLocation& location = state.stages()[conv].location;
    EXPECT_EQ(location.kind, schedule::ComputeLocationKind::At);
    EXPECT_EQ(location.targetStage, relu);
    levelsSeen.insert(std::get<schedule::ComputeAtStep>(
                          *std::find_if(steps.begin(), steps.end(),
                                        [&](const schedule::Step& step) {
                                          const auto* at =
                                              std::get_if<schedule::ComputeAtStep>(&step);
                                          return at && at->stage == conv;
                                        }))
                          .targetIterator);
    EXPECT_TRUE(matchesReference(workload, steps));
  }
  EXPECT_EQ(levelsSeen, (std::set<int>{3, 7}));
  EXPECT_GT(padsPerTile, 5);
  EXPECT_LT(padsPerTile, 25);
}

TEST(SearchSketch, UnitStrideConvolutionIsAlsoTiledOverFlattenedPositions) {
  // 1x1, stride 1, no padding: rows and columns of input and output are one contiguous axis.
  const te::Workload pointwise = te::lowerTask(conv1x1Task());
  const std::vector<Sketch> sketches = generateSketches(pointwise);
  // Fused at level 1 or 2, flattened or not, and each with the input packed per tile.
  ASSERT_EQ(sketches.size(), 8u);
  int flattened = 0;
  for (const Sketch& sketch : sketches) {
    if (sketch.description.find("flatten(0)") == std::string::npos)
      continue;
    ++flattened;
    // The conv's rows and columns are fused first, then the ReLU's before it follows the tile.
    EXPECT_EQ(sketch.steps.front(),
              (schedule::Step{schedule::FuseStep{.stage = 0, .iterators = {2, 3}}}));
    EXPECT_NE(std::find(sketch.steps.begin(), sketch.steps.end(),
                        schedule::Step{schedule::FuseStep{.stage = 1, .iterators = {2, 3}}}),
              sketch.steps.end());
  }
  EXPECT_EQ(flattened, 4);
  int flattenedSamples = 0;
  for (const Steps& steps : sample(pointwise, 24, 2)) {
    flattenedSamples += std::holds_alternative<schedule::FuseStep>(steps.front());
    EXPECT_TRUE(matchesReference(pointwise, steps));
  }
  EXPECT_GT(flattenedSamples, 4);

  // A padded 3x3 convolution reads rows longer than its output's: no flattening.
  for (const Sketch& sketch : generateSketches(te::lowerTask(convBiasReluTask())))
    EXPECT_EQ(sketch.description.find("flatten"), std::string::npos) << sketch.description;
}

TEST(SearchAnnotation, RandomFactorsAreExactWithAShortInnermostFactor) {
  Rng rng(3);
  for (std::int64_t extent : {1, 7, 64, 96, 128, 224, 1000}) {
    for (int draw = 0; draw < 20; ++draw) {
      const std::vector<std::int64_t> factors = randomFactors(extent, 4, rng);
      ASSERT_EQ(factors.size(), 3u);
      std::int64_t product = 1;
      for (std::int64_t factor : factors)
        product *= factor;
      EXPECT_EQ(extent % product, 0) << extent;
      EXPECT_LE(factors.back(), kMaxInnermostFactor);
    }
  }
}

TEST(SearchAnnotation, NonOutputReductionIsSometimesComputedAtItsConsumer) {
  const te::Workload workload = te::lowerTask(matmulChainTask(16, 24, 32));
  const schedule::State initial = schedule::initialState(workload);
  const int first = findStage(initial, true, false);
  ASSERT_GE(first, 0);
  // By name: a cache_write before it renumbers the stages (and leaves the name to the copy).
  const std::string name = initial.stages()[first].tensor->name;
  int atRoot = 0, atConsumer = 0;
  for (const Steps& steps : sample(workload, 30, 9)) {
    const schedule::State state = schedule::replay(workload, steps);
    const auto stage =
        std::find_if(state.stages().begin(), state.stages().end(),
                     [&](const schedule::Stage& s) { return s.tensor->name == name; });
    ASSERT_NE(stage, state.stages().end());
    const auto kind = stage->location.kind;
    atRoot += kind == schedule::ComputeLocationKind::Root;
    atConsumer += kind == schedule::ComputeLocationKind::At;
  }
  EXPECT_GT(atRoot, 0);
  EXPECT_GT(atConsumer, 0);
  expectValidSamples(matmulChainTask(16, 24, 32), 10);
}

TEST(SearchSample, MatmulSamplesAreDistinctValidAndCorrect) {
  expectValidSamples(matmulTask(32, 48, 64), 7);
}

template <class T>
bool uses(const Steps& steps) {
  return std::any_of(steps.begin(), steps.end(),
                     [](const schedule::Step& step) { return std::holds_alternative<T>(step); });
}

TEST(SearchSample, SomeMatmulSamplesAccumulateTheirTileInALocalCache) {
  const te::Workload workload = te::lowerTask(matmulTask(32, 48, 64));
  int cached = 0;
  const std::vector<Steps> samples = sample(workload, 40, 1, {.cores = 2});
  for (const Steps& steps : samples) {
    if (!uses<schedule::CacheWriteStep>(steps))
      continue;
    ++cached;
    const schedule::State state = schedule::replay(workload, steps);
    // The cache is computed at a tile of the copy: a local buffer smaller than the output,
    // allocated inside the copy's loops.
    ASSERT_EQ(state.stages()[0].location.kind, schedule::ComputeLocationKind::At);
    const std::string text = te::toString(schedule::lower(workload, state, "f"));
    const std::size_t allocation = text.find("allocate " + state.stages()[0].tensor->name + ":");
    ASSERT_NE(allocation, std::string::npos) << text;
    EXPECT_LT(text.find("for "), allocation) << text;
    EXPECT_TRUE(matchesReference(workload, steps));
  }
  EXPECT_GT(cached, 0);
  EXPECT_LT(cached, static_cast<int>(samples.size()));
}

// Y = MatMul(A[2, 512], B[512, 16]): 32 outputs of 512 terms each, so AddRfactor applies.
TEST(SearchSample, DenseWithFewRowsSometimesFactorsItsReduction) {
  const graph::Task task = matmulTask(2, 16, 512);
  const te::Workload workload = te::lowerTask(task);
  const std::vector<Sketch> sketches = generateSketches(workload);
  std::vector<std::string> descriptions;
  for (const Sketch& sketch : sketches)
    descriptions.push_back(sketch.description);
  EXPECT_EQ(descriptions,
            (std::vector<std::string>{"tile(0)", "cache_write(0) tile(0) fuse(0->1@1)",
                                      "cache_write(0) tile(0) fuse(0->1@2)", "rfactor(0,outer)",
                                      "rfactor(0,inner)", "tile(0) pack(input1->1)",
                                      "cache_write(0) tile(0) fuse(0->1@1) pack(input1->1)",
                                      "cache_write(0) tile(0) fuse(0->1@2) pack(input1->1)"}));
  int factored = 0;
  for (const Steps& steps : sample(workload, 40, 2, {.cores = 4})) {
    factored += uses<schedule::RfactorStep>(steps);
    EXPECT_TRUE(matchesReference(workload, steps));
  }
  EXPECT_GT(factored, 0);
}

// Softmax's max and sum and a full sum have few outputs and long reductions: some samples
// factor them, and every sample computes the plain reference's values.
TEST(SearchSample, ReductionSamplesWithRfactorComputeTheReference) {
  namespace st = schedule::testing;
  for (const st::TestWorkload& test : {st::softmax(4, 96), st::totalSum(12, 40)}) {
    for (std::uint64_t seed : {1, 2, 3}) {
      int factored = 0;
      const std::vector<Steps> samples = sample(test.workload, 16, seed, {.cores = 2});
      EXPECT_EQ(samples.size(), 16u);
      for (const Steps& steps : samples) {
        factored += uses<schedule::RfactorStep>(steps);
        EXPECT_TRUE(st::matchesReference(test, schedule::replay(test.workload, steps)))
            << test.workload.key << ": " << json(steps);
      }
      EXPECT_GT(factored, 0) << test.workload.key << " seed " << seed;
    }
  }
}

// A softmax with more rows than columns: its maximum and sum read each row contiguously and
// reuse nothing, so each is tiled (without a register cache) or factored along the row, whose
// factored loop is then the partial stage's innermost one, vectorized in some samples.
TEST(SearchSketch, ReductionsAlongContiguousRowsAreFactoredAlongTheRow) {
  namespace st = schedule::testing;
  const st::TestWorkload test = st::softmax(64, 32);
  std::vector<std::string> descriptions;
  for (const Sketch& sketch : generateSketches(test.workload))
    descriptions.push_back(sketch.description);
  EXPECT_EQ(descriptions, (std::vector<std::string>{
                              "inline(1) tile(2) tile(0)", "inline(1) tile(2) rfactor(0,inner)",
                              "inline(1) rfactor(2,inner) tile(0)",
                              "inline(1) rfactor(2,inner) rfactor(0,inner)"}));
  // With fewer rows than columns Ansor's AddRfactor applies as well (outer and inner).
  EXPECT_EQ(generateSketches(st::softmax(4, 96).workload).size(), 9u);
  int vectorizedAlongRows = 0;
  for (const Steps& steps : sample(test.workload, 24, 5, {.cores = 2, .vectorLanes = 8})) {
    const schedule::State state = schedule::replay(test.workload, steps);
    for (const schedule::Stage& stage : state.stages())
      if (stage.tensor->name.ends_with(".rf") &&
          stage.loop(stage.loops.size() - 1).annotation == schedule::Annotation::Vectorize)
        ++vectorizedAlongRows;
    EXPECT_TRUE(st::matchesReference(test, state)) << json(steps);
  }
  EXPECT_GT(vectorizedAlongRows, 0);
}

TEST(SearchSample, ConvolutionMatmulAndSoftmaxSamplesAreCorrectAndDeterministicPerSeed) {
  namespace st = schedule::testing;
  const te::Workload conv = te::lowerTask(convBiasReluTask());
  const te::Workload product = te::lowerTask(matmulTask(24, 20, 36));
  const st::TestWorkload rows = st::softmax(6, 40);
  for (std::uint64_t seed : {11, 12, 13}) {
    for (const te::Workload* workload : {&conv, &product, &rows.workload}) {
      const std::vector<Steps> samples = sample(*workload, 10, seed, {.cores = 2});
      EXPECT_EQ(samples.size(), 10u);
      EXPECT_EQ(sample(*workload, 10, seed, {.cores = 2}), samples);
      for (const Steps& steps : samples)
        EXPECT_TRUE(matchesReference(*workload, steps)) << workload->key << " seed " << seed;
    }
  }
}

TEST(SearchSample, ConvolutionWithPadBiasReluSamplesAreDistinctValidAndCorrect) {
  expectValidSamples(convBiasReluTask(), 10);
}

TEST(SearchSample, ElementwiseSamplesAreDistinctValidAndCorrect) {
  expectValidSamples(addReluTask(), 10);
  // Each sample parallelises and vectorizes the single root stage.
  for (const Steps& steps : sample(addReluTask(), 10, 2, {.cores = 2})) {
    const te::Workload workload = te::lowerTask(addReluTask());
    const schedule::State state = schedule::replay(workload, steps);
    const int relu = findStage(state, false, true);
    const schedule::Stage& stage = state.stages()[relu];
    EXPECT_EQ(stage.loop(0).annotation, schedule::Annotation::Parallel);
    EXPECT_EQ(stage.loop(stage.loops.size() - 1).annotation, schedule::Annotation::Vectorize);
  }
}

TEST(SearchSample, ScheduleTestWorkloadsSampleToTheirPlainReferences) {
  namespace st = schedule::testing;
  // Softmax has reductions with two consumers, the stencil chain inlined producers with
  // overlapping windows, the total sum a reduction without spatial axes.
  for (const st::TestWorkload& test :
       {st::elementwiseChain(6, 20), st::matmul(12, 20, 36), st::paddedConvolution(3, 4, 6, 6),
        st::softmax(5, 24), st::stencilChain(40), st::totalSum(6, 18)}) {
    const std::vector<Steps> samples = sample(test.workload, 12, 4, {.cores = 2});
    EXPECT_FALSE(samples.empty()) << test.workload.key;
    for (const Steps& steps : samples)
      EXPECT_TRUE(st::matchesReference(test, schedule::replay(test.workload, steps)))
          << test.workload.key << ": " << json(steps);
  }
}

TEST(SearchSample, NoVectorizeWithoutVectorLanes) {
  for (const Steps& steps : sample(matmulTask(16, 32, 8), 20, 6, {.vectorLanes = 1}))
    for (const schedule::Step& step : steps)
      if (const auto* annotation = std::get_if<schedule::AnnotationStep>(&step)) {
        EXPECT_NE(annotation->annotation, schedule::Annotation::Vectorize);
      }
}

TEST(SearchSample, SameSeedSameSamplesAndPrefixStableInTheCount) {
  const graph::Task task = convBiasReluTask();
  const std::vector<Steps> fifty = sample(task, 50, 42);
  const std::vector<Steps> again = sample(task, 50, 42);
  const std::vector<Steps> ten = sample(task, 10, 42);
  ASSERT_EQ(fifty.size(), 50u);
  EXPECT_EQ(fifty, again);
  ASSERT_EQ(ten.size(), 10u);
  EXPECT_TRUE(std::equal(ten.begin(), ten.end(), fifty.begin()));
  const std::vector<Steps> other = sample(task, 10, 43);
  EXPECT_NE(other, ten);
}

TEST(SearchSample, SmallSpacesGiveFewerSamplesAndBadCountsThrow) {
  // [2, 3]: no vector length to split off, only the unroll choices differ.
  graph::Task task;
  task.inputs = {{.shape = {2, 3}}};
  task.nodes = {node("Relu", {input(0)}, {2, 3}, graph::PatternKind::ElemWise)};
  task.outputs = {nodeOutput(0)};
  const std::vector<Steps> samples = sample(finish(task), 50, 1);
  EXPECT_EQ(samples.size(), std::size(kAutoUnrollChoices));
  EXPECT_THROW(sample(finish(task), -1, 1), Error);
}

} // namespace
