// See State.h: the initial state of a workload and the effect of every step on a state, with the
// legality checks that make an illegal step an InvalidScheduleError instead of wrong code.
#include "schedule/State.h"

#include "schedule/DagRewrite.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <set>
#include <sstream>

namespace clustune::schedule {
namespace {

std::int64_t ceilDivide(std::int64_t extent, std::int64_t divisor) {
  return (extent + divisor - 1) / divisor;
}

std::string stageList(const State& state, const std::vector<int>& stages) {
  std::ostringstream text;
  for (std::size_t i = 0; i < stages.size(); ++i)
    text << (i ? ", " : "") << '\'' << state.stages()[stages[i]].tensor->name << '\'';
  return text.str();
}

// A stage computed at root with its axes as loops: spatial axes outermost, then reduce axes.
Stage initialStage(const te::Tensor& tensor, int outputIndex) {
  assert(tensor->kind == te::TensorKind::Compute);
  Stage stage{
      .tensor = tensor, .outputIndex = outputIndex, .iterators = {}, .relations = {}, .loops = {}};
  auto addAxis = [&](const te::IterVar& axis, IteratorKind kind) {
    stage.loops.push_back(static_cast<int>(stage.iterators.size()));
    stage.iterators.push_back({.name = axis.var->name,
                               .extent = axis.extent,
                               .kind = kind,
                               .origin = IteratorOrigin::Axis,
                               .axis = static_cast<int>(stage.iterators.size())});
  };
  for (const te::IterVar& axis : tensor->axes)
    addAxis(axis, IteratorKind::Spatial);
  if (tensor->isReduction())
    for (const te::IterVar& axis : tensor->body->reduceAxes)
      addAxis(axis, IteratorKind::Reduce);
  return stage;
}

} // namespace

int Stage::loopPosition(int iteratorId) const {
  auto found = std::find(loops.begin(), loops.end(), iteratorId);
  return found == loops.end() ? -1 : static_cast<int>(found - loops.begin());
}

int State::stageIndex(const te::TensorNode* tensor) const {
  for (std::size_t i = 0; i < stages_.size(); ++i)
    if (stages_[i].tensor.get() == tensor)
      return static_cast<int>(i);
  return -1;
}

InvalidScheduleError::InvalidScheduleError(std::size_t stepIndex, const Step& step,
                                           std::string reason)
    : Error("invalid schedule: step " + std::to_string(stepIndex) + " " + toString(step) + ": " +
            reason),
      stepIndex_(stepIndex), reason_(std::move(reason)) {}

namespace {
// Bindings that run within a block: its threads, or virtual threads inside one.
bool onBlockThreads(Annotation annotation) {
  return annotation == Annotation::VThread || annotation == Annotation::ThreadIdxX ||
         annotation == Annotation::ThreadIdxY || annotation == Annotation::ThreadIdxZ;
}
} // namespace

// Applies one step to a state in place. Each step has one function; checks come first so that
// a rejected step leaves nothing half done (applyStep() works on a copy anyway).

class StepApplier {
public:
  StepApplier(State& state, const Step& step) : state_(state), step_(step) {}

  void operator()(const SplitStep& split) {
    Stage& stage = mutableStage(split.stage, true);
    const int position = checkedLoop(stage, split.iterator);
    const int parentId = stage.loops[position];
    const Iterator parent = stage.iterators[parentId];
    if (split.factors.empty())
      fail("split needs at least one factor");
    std::int64_t product = 1;
    for (std::int64_t factor : split.factors) {
      if (factor <= 0)
        fail("split factor must be positive, got " + std::to_string(factor));
      // Checked before multiplying, so that absurd factors cannot overflow.
      if (factor > parent.extent / product)
        fail("the factors' product exceeds the extent " + std::to_string(parent.extent) +
             " of iterator '" + parent.name + "'");
      product *= factor;
    }
    if (parent.annotation != Annotation::None)
      fail("cannot split annotated iterator '" + parent.name + "'");

    IteratorRelation relation{.kind = IteratorRelation::Kind::Split,
                              .inputs = {parentId},
                              .outputs = {},
                              .factors = split.factors};
    const int relationIndex = static_cast<int>(stage.relations.size());
    std::vector<int> parts;
    for (std::size_t k = 0; k <= split.factors.size(); ++k) {
      const std::int64_t extent =
          k == 0 ? ceilDivide(parent.extent, product) : split.factors[k - 1];
      parts.push_back(addIterator(stage, {.name = parent.name + "." + std::to_string(k),
                                          .extent = extent,
                                          .kind = parent.kind,
                                          .origin = IteratorOrigin::SplitPart,
                                          .relation = relationIndex}));
    }
    relation.outputs = parts;
    stage.relations.push_back(std::move(relation));
    stage.loops.erase(stage.loops.begin() + position);
    stage.loops.insert(stage.loops.begin() + position, parts.begin(), parts.end());
    moveAttachments(split.stage, {parentId}, parts.back());
  }

  void operator()(const FuseStep& fuse) {
    Stage& stage = mutableStage(fuse.stage, true);
    if (fuse.iterators.empty())
      fail("fuse needs at least one iterator");
    for (std::size_t k = 0; k < fuse.iterators.size(); ++k) {
      checkedLoop(stage, fuse.iterators[k]);
      if (k > 0 && fuse.iterators[k] != fuse.iterators[k - 1] + 1)
        fail("iterators " + std::to_string(fuse.iterators[k - 1]) + " and " +
             std::to_string(fuse.iterators[k]) + " are not adjacent");
    }
    std::vector<int> ids;
    std::string name;
    std::int64_t extent = 1;
    const Iterator& first = stage.loop(fuse.iterators.front());
    for (int position : fuse.iterators) {
      const Iterator& part = stage.loop(position);
      if (part.kind != first.kind)
        fail("cannot fuse spatial and reduce iterators ('" + first.name + "', '" + part.name +
             "')");
      if (part.annotation != Annotation::None)
        fail("cannot fuse annotated iterator '" + part.name + "'");
      ids.push_back(stage.loops[position]);
      name += (name.empty() ? "" : "@") + part.name;
      extent *= part.extent;
    }
    const int relationIndex = static_cast<int>(stage.relations.size());
    const int fused = addIterator(stage, {.name = name,
                                          .extent = extent,
                                          .kind = first.kind,
                                          .origin = IteratorOrigin::Fused,
                                          .relation = relationIndex});
    stage.relations.push_back(
        {.kind = IteratorRelation::Kind::Fuse, .inputs = ids, .outputs = {fused}});
    const int begin = fuse.iterators.front();
    stage.loops.erase(stage.loops.begin() + begin,
                      stage.loops.begin() + begin + static_cast<int>(ids.size()));
    stage.loops.insert(stage.loops.begin() + begin, fused);
    moveAttachments(fuse.stage, ids, fused);
  }

  void operator()(const ReorderStep& reorder) {
    Stage& stage = mutableStage(reorder.stage, true);
    const std::size_t count = stage.loops.size();
    std::vector<bool> seen(count, false);
    bool permutation = reorder.order.size() == count;
    for (int position : reorder.order) {
      if (position < 0 || static_cast<std::size_t>(position) >= count || seen[position])
        permutation = false;
      else
        seen[position] = true;
    }
    if (!permutation)
      fail("order must list each of the " + std::to_string(count) + " iterators exactly once");
    std::vector<int> loops;
    for (int position : reorder.order)
      loops.push_back(stage.loops[position]);
    stage.loops = std::move(loops);
  }

  void operator()(const AnnotationStep& annotate) {
    Stage& stage = mutableStage(annotate.stage, true);
    Iterator& iterator = stage.iterators[stage.loops[checkedLoop(stage, annotate.iterator)]];
    const bool reduce = iterator.kind == IteratorKind::Reduce;
    if (reduce && annotate.annotation == Annotation::Vectorize)
      fail("cannot vectorize reduce iterator '" + iterator.name + "'");
    if (reduce && annotate.annotation == Annotation::Parallel)
      fail("cannot parallelize reduce iterator '" + iterator.name +
           "' (iterations would race on the output)");
    if (isThreadBinding(annotate.annotation)) {
      // A reduce iterator on threadIdx.x is Ansor's cross-thread reduction: the block's
      // threads each reduce a part and combine the parts through shared memory (Lower.cpp).
      // Any other binding would have threads race on the output. The combination needs the
      // block's threads to themselves, so such a stage binds no spatial iterator to threads.
      if (reduce && annotate.annotation != Annotation::ThreadIdxX)
        fail("cannot bind reduce iterator '" + iterator.name + "' to " +
             annotationName(annotate.annotation) +
             " (threads would race on the output; only threadIdx.x, a cross-thread reduction, "
             "combines them)");
      for (int loop : stage.loops) {
        const Iterator& other = stage.iterators[loop];
        const bool crossThread = reduce || other.kind == IteratorKind::Reduce;
        if (crossThread && &other != &iterator && onBlockThreads(annotate.annotation) &&
            onBlockThreads(other.annotation))
          fail(std::string("stage '") + stage.tensor->name + "' cannot bind both '" + other.name +
               "' and '" + iterator.name +
               "' to threads: a cross-thread reduction takes the block's threads for its reduce "
               "iterator alone");
      }
      for (int loop : stage.loops)
        if (stage.iterators[loop].annotation == annotate.annotation &&
            &stage.iterators[loop] != &iterator)
          fail(std::string("stage '") + stage.tensor->name + "' already binds iterator '" +
               stage.iterators[loop].name + "' to " + annotationName(annotate.annotation));
    }
    iterator.annotation = annotate.annotation;
  }

  void operator()(const ComputeAtStep& computeAt) {
    Stage& stage = mutableStage(computeAt.stage, false);
    const Stage& target = checkedStage(computeAt.targetStage);
    const std::string& name = stage.tensor->name;
    if (computeAt.stage == computeAt.targetStage)
      fail("cannot compute stage '" + name + "' at itself");
    if (stage.isOutput())
      fail("cannot compute output stage '" + name + "' at another stage");
    if (target.isInlined())
      fail("target stage '" + target.tensor->name + "' is inlined");
    const int position = checkedLoop(target, computeAt.targetIterator);
    const std::vector<int> consumers = effectiveConsumers(state_, computeAt.stage);
    if (consumers != std::vector<int>{computeAt.targetStage})
      fail("stage '" + name + "' is read by " +
           (consumers.empty() ? "no stage" : stageList(state_, consumers)) +
           ", so it can only be computed at its single consumer");
    stage.location = {.kind = ComputeLocationKind::At,
                      .targetStage = computeAt.targetStage,
                      .targetIterator = target.loops[position]};
    checkAttachedStagesKeepTheirConsumer();
  }

  void operator()(const ComputeInlineStep& inlineStep) {
    Stage& stage = mutableStage(inlineStep.stage, false);
    const std::string& name = stage.tensor->name;
    if (stage.isOutput())
      fail("cannot inline output stage '" + name + "'");
    if (stage.tensor->isReduction())
      fail("cannot inline reduction stage '" + name + "'");
    std::vector<int> attached;
    for (std::size_t i = 0; i < state_.stages_.size(); ++i)
      if (state_.stages_[i].location.kind == ComputeLocationKind::At &&
          state_.stages_[i].location.targetStage == inlineStep.stage)
        attached.push_back(static_cast<int>(i));
    if (!attached.empty())
      fail("cannot inline stage '" + name + "': " + stageList(state_, attached) +
           " computed at it");
    stage.location = {.kind = ComputeLocationKind::Inlined};
    checkAttachedStagesKeepTheirConsumer();
  }

  void operator()(const ComputeRootStep& root) {
    mutableStage(root.stage, false).location = {};
    checkAttachedStagesKeepTheirConsumer();
  }

  void operator()(const PragmaStep& pragma) {
    Stage& stage = mutableStage(pragma.stage, true);
    checkedLoop(stage, pragma.iterator);
    if (pragma.autoUnrollMaxStep < 0)
      fail("auto_unroll_max_step must not be negative, got " +
           std::to_string(pragma.autoUnrollMaxStep));
    stage.autoUnrollMaxStep = pragma.autoUnrollMaxStep;
  }

  void operator()(const CacheWriteStep& cacheWrite) {
    const Stage& stage = mutableStage(cacheWrite.stage, true);
    if (cacheWrite.scope != "local")
      fail("unknown scope '" + cacheWrite.scope + "' (the CPU has only \"local\")");
    checkUntouchedRootStage(cacheWrite.stage, "cache_write");
    if (!stage.relations.empty() || !std::is_sorted(stage.loops.begin(), stage.loops.end()))
      fail("cache_write must come before any loop step on stage '" + stage.tensor->name +
           "' (its loops start afresh, as in Ansor)");
    replaceStage(cacheWrite.stage, cacheWriteTensors(stage.tensor));
  }

  void operator()(const CacheReadStep& cacheRead) {
    if (!isCacheReadScope(cacheRead.scope))
      fail("unknown scope '" + cacheRead.scope + "' (known: \"local\", \"global\", \"shared\")");
    te::Tensor read;
    if (cacheRead.stage >= 0) {
      read = checkedStage(cacheRead.stage).tensor;
      if (cacheRead.input != -1)
        fail("name either a stage or an input (the other -1), not stage " +
             std::to_string(cacheRead.stage) + " and input " + std::to_string(cacheRead.input));
    } else {
      if (cacheRead.stage != -1)
        checkedStage(cacheRead.stage);
      if (cacheRead.input < 0 || static_cast<std::size_t>(cacheRead.input) >= state_.inputs_.size())
        fail("input " + std::to_string(cacheRead.input) + " does not exist (the workload has " +
             std::to_string(state_.inputs_.size()) + " inputs)");
      read = state_.inputs_[cacheRead.input];
    }
    if (cacheRead.readers.empty())
      fail("cache_read needs at least one reader");
    std::set<int> readers;
    for (int reader : cacheRead.readers) {
      const Stage& stage = checkedStage(reader);
      if (!readers.insert(reader).second)
        fail("reader stage " + std::to_string(reader) + " is listed twice");
      if (stage.isInlined())
        fail("reader stage '" + stage.tensor->name +
             "' is inlined (name the stages it is inlined into, before inlining it)");
      const std::vector<te::Tensor> producers = te::producersOf(stage.tensor);
      if (std::find(producers.begin(), producers.end(), read) == producers.end())
        fail("stage '" + stage.tensor->name + "' does not read '" + read->name + "'");
    }

    // Ansor's numbering: the copy right after the producer of the tensor it copies (first for
    // an input), so that stages keep their topological order.
    const int index = cacheRead.stage + 1;
    std::vector<Stage>& stages = state_.stages_;
    const te::Tensor copy = cacheReadTensor(read, cacheRead.scope);
    stages.insert(stages.begin() + index, initialStage(copy, -1));
    stages[index].sharedMemory = cacheRead.scope == "shared";
    for (Stage& stage : stages)
      if (stage.location.kind == ComputeLocationKind::At && stage.location.targetStage >= index)
        ++stage.location.targetStage;
    // The readers load the copy; a later stage that loads a rebuilt reader loads the new tensor
    // (and still the original, if it read that itself).
    TensorReplacements rebuiltReaders;
    for (std::size_t i = index + 1; i < stages.size(); ++i) {
      TensorReplacements replacements = rebuiltReaders;
      if (readers.count(static_cast<int>(i) - 1))
        replacements[read.get()] = copy;
      const te::Tensor rebuilt = withReplacedProducers(stages[i].tensor, replacements);
      if (rebuilt.get() != stages[i].tensor.get()) {
        rebuiltReaders[stages[i].tensor.get()] = rebuilt;
        stages[i].tensor = rebuilt;
      }
    }
    checkAttachedStagesKeepTheirConsumer();
  }

  void operator()(const RfactorStep& rfactor) {
    const Stage& stage = mutableStage(rfactor.stage, true);
    const std::string& name = stage.tensor->name;
    if (!stage.tensor->isReduction())
      fail("stage '" + name + "' is not a reduction");
    checkUntouchedRootStage(rfactor.stage, "rfactor");
    const Iterator& iterator = stage.loop(checkedLoop(stage, rfactor.iterator));
    if (iterator.kind != IteratorKind::Reduce)
      fail("iterator '" + iterator.name + "' is not a reduce iterator");
    for (const IteratorRelation& relation : stage.relations)
      if (stage.iterators[relation.inputs[0]].kind != IteratorKind::Reduce)
        fail("rfactor needs the spatial iterators of stage '" + name +
             "' untransformed (split or fuse only its reduce iterators before it)");
    if (rfactor.factorIteratorPosition < 0 ||
        rfactor.factorIteratorPosition > stage.spatialAxisCount())
      fail("factor position " + std::to_string(rfactor.factorIteratorPosition) +
           " is not between 0 and the " + std::to_string(stage.spatialAxisCount()) +
           " spatial axes of stage '" + name + "'");
    replaceStage(rfactor.stage,
                 rfactorTensors(stage, rfactor.iterator, rfactor.factorIteratorPosition));
  }

private:
  [[noreturn]] void fail(const std::string& reason) const {
    throw InvalidScheduleError(state_.steps_.size(), step_, reason);
  }

  const Stage& checkedStage(int index) const {
    if (index < 0 || static_cast<std::size_t>(index) >= state_.stages_.size())
      fail("stage " + std::to_string(index) + " does not exist (the workload has " +
           std::to_string(state_.stages_.size()) + " stages)");
    return state_.stages_[index];
  }

  // Loop steps (split, fuse, ...) make no sense on a stage that has no loops of its own.
  Stage& mutableStage(int index, bool editsLoops) {
    checkedStage(index);
    Stage& stage = state_.stages_[index];
    if (editsLoops && stage.isInlined())
      fail("stage '" + stage.tensor->name + "' is inlined");
    return stage;
  }

  int checkedLoop(const Stage& stage, int position) const {
    if (position < 0 || static_cast<std::size_t>(position) >= stage.loops.size())
      fail("iterator " + std::to_string(position) + " does not exist (stage '" +
           stage.tensor->name + "' has " + std::to_string(stage.loops.size()) + " iterators)");
    return position;
  }

  // A stage computed at another one must stay readable by nothing else. Moving a stage out of
  // (or into) its consumers changes who reads its producers: un-inlining a stage that read a
  // stage computed elsewhere would leave that stage's values out of reach.
  void checkAttachedStagesKeepTheirConsumer() const {
    for (std::size_t i = 0; i < state_.stages_.size(); ++i) {
      const Stage& stage = state_.stages_[i];
      if (stage.location.kind != ComputeLocationKind::At)
        continue;
      const std::vector<int> consumers = effectiveConsumers(state_, static_cast<int>(i));
      if (consumers != std::vector<int>{stage.location.targetStage})
        fail("stage '" + stage.tensor->name + "' is computed at '" +
             state_.stages_[stage.location.targetStage].tensor->name + "' but would be read by " +
             (consumers.empty() ? "no stage" : stageList(state_, consumers)));
    }
  }

  // cache_write and rfactor rebuild the stage from its tensors, so nothing done to it may be
  // lost silently: no annotation, pragma or compute location, and no stage computed at it
  // (which would have to follow the computation into the new producer).
  void checkUntouchedRootStage(int index, const char* step) const {
    const Stage& stage = state_.stages_[index];
    const std::string& name = stage.tensor->name;
    if (stage.location.kind != ComputeLocationKind::Root)
      fail(std::string(step) + " needs stage '" + name + "' at root");
    for (const Iterator& iterator : stage.iterators)
      if (iterator.annotation != Annotation::None)
        fail(std::string(step) + " must come before annotating stage '" + name + "'");
    if (stage.autoUnrollMaxStep != 0)
      fail(std::string(step) + " must come before the pragma of stage '" + name + "'");
    std::vector<int> attached;
    for (std::size_t i = 0; i < state_.stages_.size(); ++i)
      if (state_.stages_[i].location.kind == ComputeLocationKind::At &&
          state_.stages_[i].location.targetStage == index)
        attached.push_back(static_cast<int>(i));
    if (!attached.empty())
      fail(std::string(step) + " of stage '" + name + "' must come before computing " +
           stageList(state_, attached) + " at it");
  }

  // Ansor's stage renumbering: the pair's producer takes `index`, its consumer index + 1 with
  // the replaced stage's output position, and every later stage moves up by one. Later stages
  // keep their loops but read the consumer instead of the replaced tensor.
  void replaceStage(int index, const StagePair& pair) {
    std::vector<Stage>& stages = state_.stages_;
    const te::TensorNode* replaced = stages[index].tensor.get();
    const int outputIndex = stages[index].outputIndex;
    stages[index] = initialStage(pair.consumer, outputIndex);
    stages.insert(stages.begin() + index, initialStage(pair.producer, -1));
    for (Stage& stage : stages)
      if (stage.location.kind == ComputeLocationKind::At && stage.location.targetStage >= index)
        ++stage.location.targetStage;
    TensorReplacements replacements = {{replaced, pair.consumer}};
    for (std::size_t i = index + 2; i < stages.size(); ++i) {
      const te::Tensor rebuilt = withReplacedProducers(stages[i].tensor, replacements);
      if (rebuilt.get() != stages[i].tensor.get()) {
        replacements[stages[i].tensor.get()] = rebuilt;
        stages[i].tensor = rebuilt;
      }
    }
  }

  static int addIterator(Stage& stage, Iterator iterator) {
    stage.iterators.push_back(std::move(iterator));
    return static_cast<int>(stage.iterators.size()) - 1;
  }

  void moveAttachments(int targetStage, const std::vector<int>& from, int to) {
    for (Stage& stage : state_.stages_)
      if (stage.location.kind == ComputeLocationKind::At &&
          stage.location.targetStage == targetStage &&
          std::find(from.begin(), from.end(), stage.location.targetIterator) != from.end())
        stage.location.targetIterator = to;
  }

  State& state_;
  const Step& step_;
};

State initialState(const te::Workload& workload) {
  State state;
  state.inputs_ = workload.inputs;
  for (const te::Tensor& tensor : workload.stages) {
    int outputIndex = -1;
    for (std::size_t k = 0; k < workload.outputs.size(); ++k)
      if (workload.outputs[k] == tensor && outputIndex < 0)
        outputIndex = static_cast<int>(k);
    state.stages_.push_back(initialStage(tensor, outputIndex));
  }
  return state;
}

State applyStep(State state, const Step& step) {
  std::visit(StepApplier(state, step), step);
  state.steps_.push_back(step);
  return state;
}

State replay(const te::Workload& workload, const std::vector<Step>& steps) {
  State state = initialState(workload);
  for (const Step& step : steps)
    state = applyStep(std::move(state), step);
  return state;
}

namespace {

// The stages read by `consumer` through any chain of inlined stages; `materialized` counts as
// computed even when it is inlined, so that one can ask who would read it if it were not.
std::vector<int> producersThroughInlined(const State& state, int consumer, int materialized) {
  std::set<int> producers;
  std::set<int> visitedInlined;
  std::function<void(int)> visit = [&](int reader) {
    for (const te::Tensor& producer : te::producersOf(state.stages()[reader].tensor)) {
      const int index = state.stageIndex(producer.get());
      if (index < 0)
        continue;
      if (!state.stages()[index].isInlined() || index == materialized)
        producers.insert(index);
      else if (visitedInlined.insert(index).second)
        visit(index);
    }
  };
  visit(consumer);
  return {producers.begin(), producers.end()};
}

} // namespace

std::vector<int> effectiveProducers(const State& state, int stage) {
  return producersThroughInlined(state, stage, -1);
}

bool isAttachTarget(const State& state, int stage, int position) {
  const int iterator = state.stages()[stage].loops[position];
  return std::any_of(state.stages().begin(), state.stages().end(), [&](const Stage& other) {
    return other.location.kind == ComputeLocationKind::At && other.location.targetStage == stage &&
           other.location.targetIterator == iterator;
  });
}

std::vector<int> effectiveConsumers(const State& state, int stage) {
  std::vector<int> consumers;
  for (std::size_t i = 0; i < state.stages().size(); ++i) {
    if (state.stages()[i].isInlined() || static_cast<int>(i) == stage)
      continue;
    const std::vector<int> producers = producersThroughInlined(state, static_cast<int>(i), stage);
    if (std::find(producers.begin(), producers.end(), stage) != producers.end())
      consumers.push_back(static_cast<int>(i));
  }
  return consumers;
}

std::string toString(const State& state) {
  std::ostringstream text;
  for (const Stage& stage : state.stages()) {
    text << stage.tensor->name << ": ";
    switch (stage.location.kind) {
    case ComputeLocationKind::Root:
      text << "root";
      break;
    case ComputeLocationKind::Inlined:
      text << "inlined";
      break;
    case ComputeLocationKind::At: {
      const Stage& target = state.stages()[stage.location.targetStage];
      text << "compute_at " << target.tensor->name << ", "
           << target.iterators[stage.location.targetIterator].name;
      break;
    }
    }
    if (stage.isOutput())
      text << ", output " << stage.outputIndex;
    if (stage.autoUnrollMaxStep)
      text << ", auto_unroll_max_step=" << stage.autoUnrollMaxStep;
    text << '\n';
    if (stage.isInlined())
      continue;
    for (std::size_t position = 0; position < stage.loops.size(); ++position) {
      const Iterator& iterator = stage.loop(position);
      text << "  for " << iterator.name << " (" << iterator.extent << ')';
      if (iterator.kind == IteratorKind::Reduce)
        text << " reduce";
      if (iterator.annotation != Annotation::None)
        text << ' ' << annotationName(iterator.annotation);
      text << '\n';
    }
  }
  return text.str();
}

} // namespace clustune::schedule
