// See ScheduleTransfer.h.
#include "search/ScheduleTransfer.h"

#include "graph/Graph.h"
#include "schedule/State.h"
#include "support/Error.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <type_traits>

namespace clustune::search {
namespace {

using schedule::Step;

// A stage's role without the index of its node in the task ("n3.relu" and "n2.relu" are both
// "relu"; "n0.convnchwc.pad" is "convnchwc.pad"), so that the same operator aligns between
// tasks whose node lists differ.
std::string stageRole(const std::string& name) {
  if (name.size() > 1 && name[0] == 'n' && std::isdigit(static_cast<unsigned char>(name[1]))) {
    const std::size_t dot = name.find('.');
    if (dot != std::string::npos)
      return name.substr(dot + 1);
  }
  return name;
}

bool isOutput(const te::Workload& workload, const te::Tensor& stage) {
  return std::find(workload.outputs.begin(), workload.outputs.end(), stage) !=
         workload.outputs.end();
}

// Siblings align stages of equal shapes; relatives, stages of equal ranks.
enum class Kinship { Sibling, Relative };

struct StageSignature {
  std::string role;
  graph::Shape shape;
  std::vector<std::int64_t> reduceExtents = {};
  bool output = false;
};

bool sameShape(const graph::Shape& a, const graph::Shape& b, Kinship kinship) {
  return kinship == Kinship::Sibling ? a == b : a.size() == b.size();
}

// Equal signatures, or two element-wise outputs of one shape whatever their operators: the
// output stage carries the tiling that the reduction is computed at (a convolution's bias as
// the output of one task and the ReLU after a residual addition in its sibling). Relatives
// compare ranks and the number of reduce axes instead of extents.
bool counterparts(const StageSignature& a, const StageSignature& b, Kinship kinship) {
  if (!sameShape(a.shape, b.shape, kinship) || a.output != b.output)
    return false;
  if (kinship == Kinship::Sibling ? a.reduceExtents != b.reduceExtents
                                  : a.reduceExtents.size() != b.reduceExtents.size())
    return false;
  return a.role == b.role || (a.output && a.reduceExtents.empty());
}

std::vector<StageSignature> signatures(const te::Workload& workload) {
  std::vector<StageSignature> result;
  for (const te::Tensor& stage : workload.stages) {
    StageSignature signature{.role = stageRole(stage->name), .shape = stage->shape};
    if (stage->isReduction())
      for (const te::IterVar& axis : stage->body->reduceAxes)
        signature.reduceExtents.push_back(axis.extent);
    signature.output = isOutput(workload, stage);
    result.push_back(std::move(signature));
  }
  return result;
}

// The longest order-preserving alignment of counterparts: aligned[d] is the recipient stage
// of donor stage d, or -1.
std::vector<int> alignStages(const std::vector<StageSignature>& from,
                             const std::vector<StageSignature>& to, Kinship kinship) {
  const std::size_t n = from.size(), m = to.size();
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = counterparts(from[i], to[j], kinship) ? lcs[i + 1][j + 1] + 1
                                                        : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<int> aligned(n, -1);
  for (std::size_t i = 0, j = 0; i < n && j < m;) {
    if (counterparts(from[i], to[j], kinship)) {
      aligned[i++] = static_cast<int>(j++);
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
      ++i;
    } else {
      ++j;
    }
  }
  return aligned;
}

int indexOf(const std::vector<te::Tensor>& tensors, const te::Tensor& tensor) {
  const auto it = std::find(tensors.begin(), tensors.end(), tensor);
  return it == tensors.end() ? -1 : static_cast<int>(it - tensors.begin());
}

// Donor input i is recipient input inputs[i] when aligned stages read them at the same place of
// their producer lists; -1 when no aligned stage reads it or the stages disagree.
std::vector<int> alignInputs(const te::Workload& from, const te::Workload& to,
                             const std::vector<int>& aligned, Kinship kinship) {
  std::vector<int> inputs(from.inputs.size(), -1);
  std::vector<bool> conflict(from.inputs.size(), false);
  for (std::size_t d = 0; d < aligned.size(); ++d) {
    if (aligned[d] < 0)
      continue;
    const std::vector<te::Tensor> read = te::producersOf(from.stages[d]);
    const std::vector<te::Tensor> readThere =
        te::producersOf(to.stages[static_cast<std::size_t>(aligned[d])]);
    if (read.size() != readThere.size())
      continue;
    for (std::size_t k = 0; k < read.size(); ++k) {
      const int i = indexOf(from.inputs, read[k]), j = indexOf(to.inputs, readThere[k]);
      if (i < 0 || j < 0 || !sameShape(read[k]->shape, readThere[k]->shape, kinship))
        continue;
      auto& slot = inputs[static_cast<std::size_t>(i)];
      if (slot >= 0 && slot != j)
        conflict[static_cast<std::size_t>(i)] = true;
      slot = j;
    }
  }
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (conflict[i])
      inputs[i] = -1;
  return inputs;
}

// The donor-to-recipient stage map while the steps replay: a step that inserts a stage inserts
// one in both workloads.
class StageMap {
public:
  explicit StageMap(std::vector<int> aligned) : map_(std::move(aligned)) {}

  int operator[](int donorStage) const {
    return donorStage >= 0 && donorStage < static_cast<int>(map_.size())
               ? map_[static_cast<std::size_t>(donorStage)]
               : -1;
  }
  // After the step, donor stage `donorNew` and recipient stage `recipientNew` are new; the
  // stages at and after them moved up by one.
  void insert(int donorNew, int recipientNew) {
    for (int& stage : map_)
      if (stage >= recipientNew)
        ++stage;
    map_.insert(map_.begin() + donorNew, recipientNew);
  }

private:
  std::vector<int> map_;
};

// The recipient's version of each step in turn: nullopt drops the step, and failed() tells that
// the schedule does not transfer.
class StepTranslator {
public:
  StepTranslator(StageMap map, std::vector<int> inputs)
      : map_(std::move(map)), inputs_(std::move(inputs)) {}

  bool failed() const { return failed_; }

  std::optional<Step> translate(const Step& step) {
    return std::visit([&](const auto& s) { return translateStep(s); }, step);
  }

private:
  template <typename S>
  std::optional<Step> translateStep(S step) {
    if constexpr (std::is_same_v<S, schedule::CacheReadStep>) {
      return translateCacheRead(std::move(step));
    } else if constexpr (std::is_same_v<S, schedule::CacheWriteStep> ||
                         std::is_same_v<S, schedule::RfactorStep>) {
      const int stage = map_[step.stage];
      if (stage < 0)
        return fail();
      map_.insert(step.stage, stage);
      step.stage = stage;
      return step;
    } else {
      const int stage = map_[step.stage];
      if constexpr (std::is_same_v<S, schedule::ComputeAtStep>) {
        const int target = map_[step.targetStage];
        if (stage >= 0 && target < 0)
          return fail();
        step.targetStage = target;
      }
      if (stage < 0) // a stage the recipient lacks: its own steps go with it
        return std::nullopt;
      step.stage = stage;
      return step;
    }
  }

  // The readers are numbered as before the step, as State.cpp reads them.
  std::optional<Step> translateCacheRead(schedule::CacheReadStep step) {
    std::vector<int> readers;
    for (int reader : step.readers) {
      const int mapped = map_[reader];
      if (mapped < 0)
        return fail();
      readers.push_back(mapped);
    }
    if (step.stage < 0) {
      const int input = step.input >= 0 && step.input < static_cast<int>(inputs_.size())
                            ? inputs_[static_cast<std::size_t>(step.input)]
                            : -1;
      if (input < 0)
        return fail();
      map_.insert(0, 0);
      step.input = input;
    } else {
      const int stage = map_[step.stage];
      if (stage < 0)
        return fail();
      map_.insert(step.stage + 1, stage + 1);
      step.stage = stage;
    }
    std::sort(readers.begin(), readers.end());
    step.readers = std::move(readers);
    return step;
  }

  std::optional<Step> fail() {
    failed_ = true;
    return std::nullopt;
  }

  StageMap map_;
  std::vector<int> inputs_;
  bool failed_ = false;
};

std::optional<std::vector<Step>> rewrite(const te::Workload& from, const std::vector<Step>& steps,
                                         const te::Workload& to, Kinship kinship) {
  const std::vector<StageSignature> donor = signatures(from), recipient = signatures(to);
  const std::vector<int> aligned = alignStages(donor, recipient, kinship);
  std::vector<bool> covered(recipient.size(), false);
  for (std::size_t d = 0; d < aligned.size(); ++d) {
    if (aligned[d] >= 0)
      covered[static_cast<std::size_t>(aligned[d])] = true;
    else if (!donor[d].reduceExtents.empty() || donor[d].output)
      return std::nullopt;
  }
  std::vector<Step> result;
  for (std::size_t r = 0; r < recipient.size(); ++r) {
    if (covered[r])
      continue;
    if (!recipient[r].reduceExtents.empty() || recipient[r].output)
      return std::nullopt;
    result.push_back(schedule::ComputeInlineStep{.stage = static_cast<int>(r)});
  }
  StepTranslator translator(StageMap(aligned), alignInputs(from, to, aligned, kinship));
  for (const Step& step : steps) {
    std::optional<Step> translated = translator.translate(step);
    if (translator.failed())
      return std::nullopt;
    if (translated)
      result.push_back(std::move(*translated));
  }
  return result;
}

// Innermost first, each factor becomes the largest divisor of the extent left that does not
// exceed it; the outermost part takes the rest.
std::vector<std::int64_t> fitFactors(const std::vector<std::int64_t>& factors,
                                     std::int64_t extent) {
  std::vector<std::int64_t> fitted(factors.size(), 1);
  std::int64_t left = std::max<std::int64_t>(extent, 1);
  for (std::size_t k = factors.size(); k-- > 0;) {
    std::int64_t divisor = std::clamp<std::int64_t>(factors[k], 1, left);
    while (left % divisor != 0)
      --divisor;
    fitted[k] = divisor;
    left /= divisor;
  }
  return fitted;
}

} // namespace

std::string transferKey(const te::Workload& workload) {
  std::ostringstream key;
  for (const te::Tensor& stage : workload.stages) {
    if (!stage->isReduction())
      continue;
    key << (isOutput(workload, stage) ? "output " : "") << stageRole(stage->name) << '['
        << graph::shapeToString(stage->shape) << "] over [";
    for (const te::IterVar& axis : stage->body->reduceAxes)
      key << axis.extent << ',';
    key << "] reads";
    for (const te::Tensor& read : te::producersOf(stage))
      key << " [" << graph::shapeToString(read->shape) << ']';
    key << ';';
  }
  return key.str();
}

std::string relativeKey(const te::Workload& workload) {
  std::ostringstream key;
  for (const te::Tensor& stage : workload.stages) {
    if (!stage->isReduction())
      continue;
    key << (isOutput(workload, stage) ? "output " : "") << stageRole(stage->name) << '/'
        << stage->shape.size() << " over " << stage->body->reduceAxes.size() << " reads";
    for (const te::Tensor& read : te::producersOf(stage))
      key << " /" << read->shape.size();
    key << ';';
  }
  return key.str();
}

std::optional<std::vector<Step>>
transferSchedule(const te::Workload& from, const std::vector<Step>& steps, const te::Workload& to) {
  return rewrite(from, steps, to, Kinship::Sibling);
}

std::optional<std::vector<Step>>
adaptSchedule(const te::Workload& from, const std::vector<Step>& steps, const te::Workload& to) {
  std::optional<std::vector<Step>> result = rewrite(from, steps, to, Kinship::Relative);
  if (!result)
    return std::nullopt;
  try {
    schedule::State state = schedule::initialState(to);
    for (Step& step : *result) {
      if (auto* split = std::get_if<schedule::SplitStep>(&step)) {
        const std::vector<schedule::Stage>& stages = state.stages();
        if (split->stage < 0 || split->stage >= static_cast<int>(stages.size()))
          return std::nullopt;
        const schedule::Stage& stage = stages[static_cast<std::size_t>(split->stage)];
        if (split->iterator < 0 || split->iterator >= static_cast<int>(stage.loops.size()))
          return std::nullopt;
        split->factors = fitFactors(split->factors,
                                    stage.loop(static_cast<std::size_t>(split->iterator)).extent);
      }
      state = schedule::applyStep(std::move(state), step);
    }
  } catch (const Error&) { // the step does not apply to the recipient
    return std::nullopt;
  }
  return result;
}

} // namespace clustune::search
