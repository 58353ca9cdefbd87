// See Lower.h. Lowering walks the root stages in topological order; a stage computed at a loop
// of another stage is lowered while that loop is being built, once bound inference has found
// the region that one iteration of the loop reads. Loads are turned into buffer loads only at
// the innermost statement, when every producer's buffer and origin are known.
#include "schedule/Lower.h"

#include "schedule/BoundInference.h"
#include "schedule/ExprUtil.h"
#include "schedule/IteratorValues.h"
#include "schedule/Simplify.h"
#include "support/Error.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <map>
#include <optional>

namespace clustune::schedule {

using namespace te;

namespace {

// Where the values of a stage live while its consumers run: element `index` of the stage is
// buffer[flatten(index - origin, shape)].
struct Realization {
  Buffer buffer;
  std::vector<Expr> origin;
  Shape shape;
};

struct Loop {
  Var var;
  std::int64_t extent = 0;
  ForKind kind = ForKind::Serial;
};

Expr flatten(const std::vector<Expr>& indices, const Shape& shape) {
  Expr flat = intImm(0);
  for (std::size_t d = 0; d < shape.size(); ++d)
    flat = flat * intImm(shape[d]) + indices[d];
  return flat;
}

Expr combine(Reducer reducer, Expr accumulated, Expr value) {
  switch (reducer) {
  case Reducer::Sum:
    return std::move(accumulated) + std::move(value);
  case Reducer::Max:
    return maximum(std::move(accumulated), std::move(value));
  case Reducer::Min:
    return minimum(std::move(accumulated), std::move(value));
  case Reducer::Prod:
    return std::move(accumulated) * std::move(value);
  }
  return accumulated;
}

ForKind forKindOf(Annotation annotation) {
  switch (annotation) {
  case Annotation::None:
    return ForKind::Serial;
  case Annotation::Parallel:
    return ForKind::Parallel;
  case Annotation::Vectorize:
    return ForKind::Vectorized;
  case Annotation::Unroll:
    return ForKind::Unrolled;
  case Annotation::BlockIdxX:
    return ForKind::BlockIdxX;
  case Annotation::BlockIdxY:
    return ForKind::BlockIdxY;
  case Annotation::BlockIdxZ:
    return ForKind::BlockIdxZ;
  case Annotation::VThread:
    return ForKind::VThread;
  case Annotation::ThreadIdxX:
    return ForKind::ThreadIdxX;
  case Annotation::ThreadIdxY:
    return ForKind::ThreadIdxY;
  case Annotation::ThreadIdxZ:
    return ForKind::ThreadIdxZ;
  }
  return ForKind::Serial;
}

Stmt guarded(Stmt stmt, const std::vector<Expr>& conditions) {
  if (conditions.empty())
    return stmt;
  Expr all = conditions.front();
  for (std::size_t i = 1; i < conditions.size(); ++i)
    all = all && conditions[i];
  return makeIfThenElse(all, std::move(stmt));
}

VarExtents extentsOf(const std::vector<Loop>& loops) {
  VarExtents extents;
  for (const Loop& loop : loops)
    extents[loop.var.get()] = loop.extent;
  return extents;
}

bool isWithinBlock(ForKind kind) {
  return kind == ForKind::VThread || kind == ForKind::ThreadIdxX || kind == ForKind::ThreadIdxY ||
         kind == ForKind::ThreadIdxZ;
}

// The loop position of the reduce iterator bound to threadIdx.x: a cross-thread reduction.
std::optional<std::size_t> crossThreadLoop(const Stage& stage) {
  for (std::size_t position = 0; position < stage.loops.size(); ++position)
    if (stage.loop(position).kind == IteratorKind::Reduce &&
        stage.loop(position).annotation == Annotation::ThreadIdxX)
      return position;
  return std::nullopt;
}

// The loop nest of one stage: its loop variables, the values of its axes in terms of them, the
// guards of splits that do not divide, and its body with axes substituted (loads still Load).
struct StageNest {
  std::vector<Loop> loops;           // per loop position
  std::vector<std::int64_t> extents; // per iterator id, recomputed from the region
  std::vector<Expr> relativeAxes;    // spatial axis values from the region's origin
  std::vector<Expr> spatialGuards;   // conditions on spatial iterators only
  std::vector<Expr> reduceGuards;    // conditions involving reduce iterators
  Expr value;                        // the body (a reduction's source), loads unlowered
  std::size_t firstReduce = 0;       // loop position of the first reduce loop
};

class Lowerer {
public:
  Lowerer(const Workload& workload, const State& state) : workload_(workload), state_(state) {
    for (const Tensor& input : workload.inputs)
      inputBuffers_[input.get()] = makeBuffer(
          input->name, input->dtype, graph::elementCount(input->shape), BufferScope::Argument);
    for (std::size_t i = 0; i < state.stages().size(); ++i) {
      const ComputeLocation& location = state.stages()[i].location;
      if (location.kind == ComputeLocationKind::At)
        attached_[{location.targetStage, location.targetIterator}].push_back(static_cast<int>(i));
    }
    effectiveBodies_.resize(state.stages().size());
  }

  LoweredFunction run(const std::string& name) {
    LoweredFunction function{.name = name, .arguments = {}, .body = {}};
    for (const Tensor& input : workload_.inputs)
      function.arguments.push_back(inputBuffers_.at(input.get()));

    std::vector<Buffer> locals;
    for (const Stage& stage : state_.stages()) {
      if (stage.location.kind != ComputeLocationKind::Root)
        continue;
      const Tensor& tensor = stage.tensor;
      const Buffer buffer =
          makeBuffer(tensor->name, tensor->dtype, graph::elementCount(tensor->shape),
                     stage.isOutput() ? BufferScope::Argument : BufferScope::Local);
      if (!stage.isOutput())
        locals.push_back(buffer);
      realizations_[tensor.get()] = {.buffer = buffer,
                                     .origin = std::vector<Expr>(tensor->shape.size(), intImm(0)),
                                     .shape = tensor->shape};
    }
    // By output position, not by tensor: cache_write and rfactor replace an output's tensor.
    // A tensor listed twice among the outputs is one stage, at its first position.
    for (std::size_t k = 0; k < workload_.outputs.size(); ++k) {
      std::size_t first = 0;
      while (workload_.outputs[first] != workload_.outputs[k])
        ++first;
      const auto stage =
          std::find_if(state_.stages().begin(), state_.stages().end(), [&](const Stage& candidate) {
            return candidate.outputIndex == static_cast<int>(first);
          });
      assert(stage != state_.stages().end());
      function.arguments.push_back(realizations_.at(stage->tensor.get()).buffer);
    }

    std::vector<Stmt> nests;
    for (std::size_t i = 0; i < state_.stages().size(); ++i) {
      const Stage& stage = state_.stages()[i];
      if (stage.location.kind != ComputeLocationKind::Root)
        continue;
      std::vector<DimRange> whole;
      for (std::int64_t extent : stage.tensor->shape)
        whole.push_back({intImm(0), extent});
      nests.push_back(lowerStage(static_cast<int>(i), whole, {}));
    }
    Stmt body = makeSequence(std::move(nests));
    for (auto local = locals.rbegin(); local != locals.rend(); ++local)
      body = makeAllocate(*local, std::move(body));
    function.body = simplify(body);
    return function;
  }

private:
  // The stage's value with every inlined producer substituted; a reduction's source.
  Expr effectiveBody(int stageIndex) {
    if (effectiveBodies_[stageIndex])
      return effectiveBodies_[stageIndex];
    const Tensor& tensor = state_.stages()[stageIndex].tensor;
    const Expr source = tensor->isReduction() ? tensor->body->operands[0] : tensor->body;
    Expr body = rewriteBottomUp(source, [&](const Expr& node) {
      if (node->kind != ExprKind::Load)
        return node;
      const int producer = state_.stageIndex(node->tensor.get());
      if (producer < 0 || !state_.stages()[producer].isInlined())
        return node;
      VarMap indices;
      for (std::size_t d = 0; d < node->tensor->axes.size(); ++d)
        indices[node->tensor->axes[d].var.get()] = node->operands[d];
      return substitute(effectiveBody(producer), indices);
    });
    effectiveBodies_[stageIndex] = body;
    return body;
  }

  Expr lowerLoads(const Expr& expr) const {
    return rewriteBottomUp(expr, [&](const Expr& node) {
      if (node->kind != ExprKind::Load)
        return node;
      const TensorNode* tensor = node->tensor.get();
      if (tensor->kind == TensorKind::Placeholder) {
        auto input = inputBuffers_.find(tensor);
        if (input == inputBuffers_.end())
          throw Error("lowering: placeholder '" + tensor->name + "' is not an input of workload " +
                      workload_.key);
        return bufferLoad(input->second, flatten(node->operands, tensor->shape));
      }
      const Realization& realization = realizations_.at(tensor);
      std::vector<Expr> local;
      for (std::size_t d = 0; d < node->operands.size(); ++d)
        local.push_back(node->operands[d] - realization.origin[d]);
      return bufferLoad(realization.buffer, flatten(local, realization.shape));
    });
  }

  StageNest makeNest(int stageIndex, const std::vector<DimRange>& region) {
    const Stage& stage = state_.stages()[stageIndex];
    const Tensor& tensor = stage.tensor;
    const std::size_t spatialCount = tensor->axes.size();
    StageNest nest;

    // Extents follow the region: a stage computed at another stage covers only what one
    // iteration there reads, so its outer split parts and fused loops shrink.
    nest.extents.assign(stage.iterators.size(), 0);
    for (std::size_t id = 0; id < stage.iterators.size(); ++id) {
      const Iterator& iterator = stage.iterators[id];
      if (iterator.origin == IteratorOrigin::Axis)
        nest.extents[id] = static_cast<std::size_t>(iterator.axis) < spatialCount
                               ? region[iterator.axis].extent
                               : iterator.extent;
    }
    for (const IteratorRelation& relation : stage.relations) {
      if (relation.kind == IteratorRelation::Kind::Split) {
        std::int64_t product = 1;
        for (std::int64_t factor : relation.factors)
          product *= factor;
        const std::int64_t parent = nest.extents[relation.inputs[0]];
        nest.extents[relation.outputs[0]] = (parent + product - 1) / product;
        for (std::size_t k = 0; k < relation.factors.size(); ++k)
          nest.extents[relation.outputs[k + 1]] = relation.factors[k];
      } else {
        std::int64_t product = 1;
        for (int input : relation.inputs)
          product *= nest.extents[input];
        nest.extents[relation.outputs[0]] = product;
      }
    }

    std::vector<Expr> values(stage.iterators.size());
    nest.firstReduce = stage.loops.size();
    for (std::size_t position = 0; position < stage.loops.size(); ++position) {
      const int id = stage.loops[position];
      const Var var = makeVar(stage.iterators[id].name);
      nest.loops.push_back({var, nest.extents[id]});
      values[id] = varExpr(var);
      if (stage.iterators[id].kind == IteratorKind::Reduce &&
          nest.firstReduce == stage.loops.size())
        nest.firstReduce = position;
    }

    for (const SplitGuard& guard : recombineIteratorValues(stage, nest.extents, values))
      (guard.kind == IteratorKind::Spatial ? nest.spatialGuards : nest.reduceGuards)
          .push_back(guard.condition);

    VarMap axisValues;
    for (std::size_t d = 0; d < spatialCount; ++d) {
      assert(stage.iterators[d].origin == IteratorOrigin::Axis &&
             stage.iterators[d].axis == static_cast<int>(d));
      nest.relativeAxes.push_back(values[d]);
      const Expr absolute = region[d].min + values[d];
      axisValues[tensor->axes[d].var.get()] = absolute;
      if (stage.location.kind == ComputeLocationKind::At) {
        // The region may stick out of the tensor near its border.
        nest.spatialGuards.push_back(absolute >= intImm(0));
        nest.spatialGuards.push_back(absolute < intImm(tensor->shape[d]));
      }
    }
    if (tensor->isReduction())
      for (std::size_t r = 0; r < tensor->body->reduceAxes.size(); ++r)
        axisValues[tensor->body->reduceAxes[r].var.get()] = values[spatialCount + r];
    nest.value = substitute(effectiveBody(stageIndex), axisValues);
    return nest;
  }

  // The statements of a stage for its region; `enclosing` are the loops around it.
  Stmt lowerStage(int stageIndex, const std::vector<DimRange>& region,
                  const std::vector<Loop>& enclosing) {
    const Stage& stage = state_.stages()[stageIndex];
    const Tensor& tensor = stage.tensor;
    const StageNest nest = makeNest(stageIndex, region);
    const Realization& self = realizations_.at(tensor.get());
    const Expr storeIndex = flatten(nest.relativeAxes, self.shape);
    const bool reduction = tensor->isReduction();
    const std::size_t loopCount = nest.loops.size();
    std::vector<Loop> scope = enclosing;

    const std::optional<std::size_t> threadLoop = crossThreadLoop(stage);
    if (threadLoop)
      checkCrossThread(stage, nest, enclosing);

    std::function<Stmt(std::size_t)> build = [&](std::size_t position) -> Stmt {
      if (threadLoop && position == nest.firstReduce)
        return crossThreadReduction(stageIndex, nest, *threadLoop, storeIndex, self.buffer, scope);
      std::vector<Stmt> statements;
      if (reduction && position == nest.firstReduce)
        statements.push_back(initialization(stage, nest, storeIndex, self.buffer));
      if (position == loopCount) {
        Expr value = lowerLoads(nest.value);
        if (reduction)
          value = combine(tensor->body->reducer, bufferLoad(self.buffer, storeIndex), value);
        std::vector<Expr> guards = nest.spatialGuards;
        guards.insert(guards.end(), nest.reduceGuards.begin(), nest.reduceGuards.end());
        statements.push_back(guarded(makeStore(self.buffer, storeIndex, value), guards));
        return makeSequence(std::move(statements));
      }
      const Loop& loop = nest.loops[position];
      scope.push_back({loop.var, loop.extent, forKindOf(stage.loop(position).annotation)});
      const std::vector<Loop> inner(nest.loops.begin() + position + 1, nest.loops.end());
      Stmt body = withAttachedStages(stageIndex, stage.loops[position], nest.value, scope, inner,
                                     [&] { return build(position + 1); });
      scope.pop_back();
      statements.push_back(makeFor(loop.var, loop.extent,
                                   forKindOf(stage.loop(position).annotation), std::move(body),
                                   position == 0 ? stage.autoUnrollMaxStep : 0));
      return makeSequence(std::move(statements));
    };
    return build(0);
  }

  void checkCrossThread(const Stage& stage, const StageNest& nest,
                        const std::vector<Loop>& enclosing) const {
    const std::string name = "stage '" + stage.tensor->name + "'";
    for (std::size_t position = nest.firstReduce; position < stage.loops.size(); ++position)
      if (stage.loop(position).kind == IteratorKind::Spatial)
        throw Error("lowering " + workload_.key + ": " + name + " has spatial loop '" +
                    stage.loop(position).name +
                    "' inside its reduce loops; a cross-thread reduction needs them outside");
    for (const Loop& loop : enclosing)
      if (isWithinBlock(loop.kind))
        throw Error("lowering " + workload_.key + ": " + name +
                    " is a cross-thread reduction computed inside " + forKindName(loop.kind) +
                    " loop '" + loop.var->name + "'; it needs the block's threads to itself");
  }

  // Ansor's cross-thread reduction, as TVM lowers a reduce loop bound to threadIdx.x: each of
  // the block's threads reduces its share of the reduce loops into a register, the shares meet
  // in shared memory, a tree of halving steps with a barrier after each folds them into
  // element 0, and thread 0 stores it. Every thread reaches every barrier; only the loads and
  // stores are guarded.
  Stmt crossThreadReduction(int stageIndex, const StageNest& nest, std::size_t threadPosition,
                            const Expr& storeIndex, const Buffer& output,
                            std::vector<Loop>& scope) {
    const Stage& stage = state_.stages()[stageIndex];
    const Tensor& tensor = stage.tensor;
    const Reducer reducer = tensor->body->reducer;
    const Loop& thread = nest.loops[threadPosition];
    const Expr t = varExpr(thread.var);
    const Buffer partial =
        makeBuffer(tensor->name + ".partial", tensor->dtype, 1, BufferScope::Local);
    const Buffer partials =
        makeBuffer(tensor->name + ".partials", tensor->dtype, thread.extent, BufferScope::Shared);

    std::vector<std::size_t> serial;
    for (std::size_t position = nest.firstReduce; position < nest.loops.size(); ++position)
      if (position != threadPosition)
        serial.push_back(position);
    const auto innerLoops = [&](std::size_t from) {
      std::vector<Loop> inner;
      for (std::size_t k = from; k < serial.size(); ++k)
        inner.push_back(nest.loops[serial[k]]);
      return inner;
    };
    std::function<Stmt(std::size_t)> accumulate = [&](std::size_t k) -> Stmt {
      if (k == serial.size()) {
        std::vector<Expr> guards = nest.spatialGuards;
        guards.insert(guards.end(), nest.reduceGuards.begin(), nest.reduceGuards.end());
        const Expr value = combine(reducer, bufferLoad(partial, intImm(0)), lowerLoads(nest.value));
        return guarded(makeStore(partial, intImm(0), value), guards);
      }
      const std::size_t position = serial[k];
      const Loop& loop = nest.loops[position];
      const ForKind kind = forKindOf(stage.loop(position).annotation);
      scope.push_back({loop.var, loop.extent, kind});
      Stmt body = withAttachedStages(stageIndex, stage.loops[position], nest.value, scope,
                                     innerLoops(k + 1), [&] { return accumulate(k + 1); });
      scope.pop_back();
      return makeFor(loop.var, loop.extent, kind, std::move(body));
    };

    scope.push_back({thread.var, thread.extent, ForKind::ThreadIdxX});
    std::vector<Stmt> perThread{
        makeStore(partial, intImm(0), reducerIdentity(reducer, tensor->dtype)),
        withAttachedStages(stageIndex, stage.loops[threadPosition], nest.value, scope,
                           innerLoops(0), [&] { return accumulate(0); }),
        makeStore(partials, t, bufferLoad(partial, intImm(0))), makeBarrier()};
    scope.pop_back();
    std::int64_t width = 1;
    while (width < thread.extent)
      width *= 2;
    for (std::int64_t half = width / 2; half >= 1; half /= 2) {
      // Element t + half folds into t; with a thread count that is not a power of two, the
      // first step has fewer than `half` elements above it.
      const std::int64_t active = std::min(half, thread.extent - half);
      perThread.push_back(makeIfThenElse(
          t < intImm(active), makeStore(partials, t,
                                        combine(reducer, bufferLoad(partials, t),
                                                bufferLoad(partials, t + intImm(half))))));
      perThread.push_back(makeBarrier());
    }
    std::vector<Expr> guards = nest.spatialGuards;
    guards.push_back(t == intImm(0));
    perThread.push_back(
        guarded(makeStore(output, storeIndex, bufferLoad(partials, intImm(0))), guards));

    const Stmt threads = makeFor(thread.var, thread.extent, ForKind::ThreadIdxX,
                                 makeAllocate(partial, makeSequence(std::move(perThread))),
                                 nest.firstReduce == 0 ? stage.autoUnrollMaxStep : 0);
    return makeAllocate(partials, threads);
  }

  // buffer[index] = identity over the spatial loops inside the first reduce loop, with fresh
  // loop variables (every loop variable is bound by exactly one loop).
  static Stmt initialization(const Stage& stage, const StageNest& nest, const Expr& storeIndex,
                             const Buffer& buffer) {
    VarMap fresh;
    std::vector<std::pair<Loop, ForKind>> loops;
    for (std::size_t position = nest.firstReduce; position < nest.loops.size(); ++position) {
      const Iterator& iterator = stage.loop(position);
      if (iterator.kind != IteratorKind::Spatial)
        continue;
      const Var var = makeVar(iterator.name);
      fresh[nest.loops[position].var.get()] = varExpr(var);
      loops.push_back({{var, nest.loops[position].extent}, forKindOf(iterator.annotation)});
    }
    std::vector<Expr> guards;
    for (const Expr& guard : nest.spatialGuards)
      guards.push_back(substitute(guard, fresh));
    const Tensor& tensor = stage.tensor;
    Stmt stmt = guarded(makeStore(buffer, substitute(storeIndex, fresh),
                                  reducerIdentity(tensor->body->reducer, tensor->dtype)),
                        guards);
    for (auto loop = loops.rbegin(); loop != loops.rend(); ++loop)
      stmt = makeFor(loop->first.var, loop->first.extent, loop->second, stmt);
    return stmt;
  }

  // Computes the stages attached at iterator `iteratorId` of `target` at the start of that
  // loop's body, each into a buffer allocated there for the region the rest of the body reads.
  Stmt withAttachedStages(int target, int iteratorId, const Expr& consumerValue,
                          const std::vector<Loop>& scope, const std::vector<Loop>& inner,
                          const std::function<Stmt()>& buildRest) {
    auto found = attached_.find({target, iteratorId});
    if (found == attached_.end())
      return buildRest();
    const VarExtents fixed = extentsOf(scope);
    const VarExtents relaxed = extentsOf(inner);
    struct Computed {
      Buffer buffer;
      Stmt stmt;
    };
    std::vector<Computed> local, shared;
    for (int producer : found->second) {
      const Tensor& tensor = state_.stages()[producer].tensor;
      // What a cross-thread reduction's thread 0 stores, the block's threads read.
      const bool sharedMemory = state_.stages()[producer].sharedMemory ||
                                crossThreadLoop(state_.stages()[producer]).has_value();
      // A shared copy serves every thread of the block: its region is what all of them read,
      // so the enclosing thread loops run through their ranges like the inner loops.
      VarExtents fixedHere = fixed, relaxedHere = relaxed;
      if (sharedMemory)
        for (const Loop& loop : scope)
          if (loop.kind == ForKind::ThreadIdxX || loop.kind == ForKind::ThreadIdxY ||
              loop.kind == ForKind::ThreadIdxZ) {
            fixedHere.erase(loop.var.get());
            relaxedHere[loop.var.get()] = loop.extent;
          }
      std::vector<std::vector<Expr>> accesses;
      forEachLoad(consumerValue, [&](const Expr& load) {
        if (load->tensor == tensor)
          accesses.push_back(load->operands);
      });
      const std::vector<DimRange> region =
          inferRegion(accesses, tensor->shape, fixedHere, relaxedHere);
      Realization realization{.buffer = {}, .origin = {}, .shape = {}};
      for (const DimRange& range : region) {
        realization.origin.push_back(range.min);
        realization.shape.push_back(range.extent);
      }
      realization.buffer =
          makeBuffer(tensor->name, tensor->dtype, graph::elementCount(realization.shape),
                     sharedMemory ? BufferScope::Shared : BufferScope::Local);
      realizations_[tensor.get()] = realization;
      (sharedMemory ? shared : local)
          .push_back({realization.buffer, lowerStage(producer, region, scope)});
    }
    Stmt body = buildRest();
    for (auto stage = local.rbegin(); stage != local.rend(); ++stage)
      body = makeAllocate(stage->buffer, makeSequence({stage->stmt, body}));
    if (!shared.empty()) {
      // The block's threads fetch the shared copies together: first every thread waits until
      // the block is done reading the copies of the loop's previous iteration, then, after
      // the fetch, until the copies are whole.
      std::vector<Stmt> statements{makeBarrier()};
      for (const Computed& stage : shared)
        statements.push_back(stage.stmt);
      statements.push_back(makeBarrier());
      statements.push_back(body);
      body = makeSequence(std::move(statements));
      for (auto stage = shared.rbegin(); stage != shared.rend(); ++stage)
        body = makeAllocate(stage->buffer, body);
    }
    return body;
  }

  const Workload& workload_;
  const State& state_;
  std::unordered_map<const TensorNode*, Buffer> inputBuffers_;
  std::unordered_map<const TensorNode*, Realization> realizations_;
  std::map<std::pair<int, int>, std::vector<int>> attached_;
  std::vector<Expr> effectiveBodies_;
};

} // namespace

LoweredFunction lower(const Workload& workload, const State& state,
                      const std::string& functionName) {
  return Lowerer(workload, state).run(functionName);
}

} // namespace clustune::schedule
