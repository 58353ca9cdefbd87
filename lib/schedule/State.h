// The schedule State of a workload (DESIGN §4.4), as in Ansor: per compute stage, its current
// loop iterators (with extents, kinds and annotations), how each iterator was derived from the
// stage's axes (split and fuse relations, TVM's IterVarRelation), where the stage is computed
// (root, inlined into its consumers, or inside a loop of another stage) and its unroll pragma.
// A State is a value: applyStep() returns the state after one step and keeps the step history, so
// replaying steps() on initialState() reproduces it exactly. Lowering (Lower.h) turns a State
// into a loop nest; the search (lib/search) only ever edits States through steps.
#pragma once

#include "schedule/Step.h"
#include "support/Error.h"
#include "te/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clustune::schedule {

enum class IteratorKind { Spatial, Reduce };
enum class IteratorOrigin { Axis, SplitPart, Fused };

struct Iterator {
  std::string name;
  std::int64_t extent = 0;
  IteratorKind kind = IteratorKind::Spatial;
  Annotation annotation = Annotation::None;
  IteratorOrigin origin = IteratorOrigin::Axis;
  int axis = -1;     // Axis: the stage's spatial axes are 0..n-1, its reduce axes follow
  int relation = -1; // SplitPart, Fused: index into Stage::relations
};

// One split or fuse, between iterator ids of the same stage.
struct IteratorRelation {
  enum class Kind { Split, Fuse };
  Kind kind = Kind::Split;
  std::vector<int> inputs;  // Split: {parent}; Fuse: the fused iterators, outermost first
  std::vector<int> outputs; // Split: the parts, outermost first; Fuse: {fused}
  // Split: the step's factors. The outermost part's extent is not stored because it follows
  // from the parent's, which lowering recomputes for stages computed at another stage.
  std::vector<std::int64_t> factors = {};
};

enum class ComputeLocationKind { Root, Inlined, At };

struct ComputeLocation {
  ComputeLocationKind kind = ComputeLocationKind::Root;
  int targetStage = -1;
  // An iterator id of the target stage (not a loop position), so that reordering the target's
  // loops carries the attached stage along; splitting or fusing the target iterator moves it
  // to the innermost part or to the fused iterator, as in Ansor.
  int targetIterator = -1;
  friend bool operator==(const ComputeLocation&, const ComputeLocation&) = default;
};

struct Stage {
  // The workload's tensor until cache_write, rfactor or cache_read replace it (and, through their
  // loads, every later stage's): then a tensor of the state's own, so identify outputs by
  // outputIndex, not by comparing with Workload::outputs.
  te::Tensor tensor;
  int outputIndex = -1; // position in Workload::outputs, or -1 for an intermediate stage
  // Every iterator the stage ever had, indexed by id; ids never change.
  std::vector<Iterator> iterators;
  std::vector<IteratorRelation> relations;
  std::vector<int> loops; // ids of the current iterators, outermost loop first
  ComputeLocation location = {};
  int autoUnrollMaxStep = 0;
  // A cache_read copy into a GPU block's shared memory: lowering makes its buffer one per block,
  // computed cooperatively by the block's threads between barriers.
  bool sharedMemory = false;

  const Iterator& loop(std::size_t position) const { return iterators[loops[position]]; }
  int spatialAxisCount() const { return static_cast<int>(tensor->axes.size()); }
  bool isOutput() const { return outputIndex >= 0; }
  bool isInlined() const { return location.kind == ComputeLocationKind::Inlined; }
  // The loop position of an iterator id, or -1 when it is not a current loop.
  int loopPosition(int iteratorId) const;
};

class State {
public:
  const std::vector<Stage>& stages() const { return stages_; }
  const std::vector<Step>& steps() const { return steps_; }
  // The workload's inputs, which cache_read names by position.
  const std::vector<te::Tensor>& inputs() const { return inputs_; }
  // The stage computing `tensor`, or -1 for a placeholder.
  int stageIndex(const te::TensorNode* tensor) const;

private:
  friend State initialState(const te::Workload& workload);
  friend // Named applyStep rather than apply: with a Step argument, argument-dependent lookup would
         // also
      // find std::apply (Step is a std::variant) and fail to compile for rvalue steps.
      State
      applyStep(State state, const Step& step);
  friend class StepApplier;

  std::vector<Stage> stages_;
  std::vector<Step> steps_;
  std::vector<te::Tensor> inputs_;
};

// Raised by applyStep() for a step that does not fit the state (a bad index, vectorising a reduce
// iterator, inlining an output, ...). Measurement records it as error kind "invalid_schedule"
// (DESIGN §5); reason() is the explanation without the step prefix.
class InvalidScheduleError : public Error {
public:
  static constexpr const char* kind = "invalid_schedule";
  InvalidScheduleError(std::size_t stepIndex, const Step& step, std::string reason);
  const std::string& reason() const { return reason_; }
  std::size_t stepIndex() const { return stepIndex_; }

private:
  std::size_t stepIndex_;
  std::string reason_;
};

// Every stage computed at root with its axes as loops: spatial axes outermost, then reduce axes.
State initialState(const te::Workload& workload);
State applyStep(State state, const Step& step);
State replay(const te::Workload& workload, const std::vector<Step>& steps);

// The non-inlined stages whose bodies read `stage` once inlined stages are substituted into
// them (sorted), as if `stage` itself were not inlined; a stage computed at another stage must
// have exactly that one consumer.
std::vector<int> effectiveConsumers(const State& state, int stage);
// Whether another stage is computed at the loop at `position` of `stage` (a loop that must stay
// a loop of its own: fusing past it or vectorizing it would move the attached stage).
bool isAttachTarget(const State& state, int stage, int position);
// The compute stages (not inlined) read by the body of `stage` with inlined stages substituted.
std::vector<int> effectiveProducers(const State& state, int stage);

// Multi-line rendering: per stage its location, pragma and loops with extents and annotations.
std::string toString(const State& state);

} // namespace clustune::schedule
