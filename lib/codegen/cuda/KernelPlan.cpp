// See KernelPlan.h.
#include "codegen/cuda/KernelPlan.h"

#include "support/Error.h"

#include <algorithm>
#include <optional>
#include <set>

namespace clustune::codegen::cuda {
namespace {

using te::ForKind;
using te::StmtKind;

// The launch axis (0, 1, 2) of a loop bound to a block or thread index.
std::optional<std::size_t> blockAxis(ForKind kind) {
  switch (kind) {
  case ForKind::BlockIdxX:
    return 0;
  case ForKind::BlockIdxY:
    return 1;
  case ForKind::BlockIdxZ:
    return 2;
  default:
    return std::nullopt;
  }
}

std::optional<std::size_t> threadAxis(ForKind kind) {
  switch (kind) {
  case ForKind::ThreadIdxX:
    return 0;
  case ForKind::ThreadIdxY:
    return 1;
  case ForKind::ThreadIdxZ:
    return 2;
  default:
    return std::nullopt;
  }
}

bool containsThreadLoop(const te::Stmt& stmt) {
  switch (stmt->kind) {
  case StmtKind::For:
    return threadAxis(stmt->forKind) || containsThreadLoop(stmt->body);
  case StmtKind::Allocate:
    return containsThreadLoop(stmt->body);
  case StmtKind::IfThenElse:
    return containsThreadLoop(stmt->body) || (stmt->elseBody && containsThreadLoop(stmt->elseBody));
  case StmtKind::Sequence:
    return std::any_of(stmt->sequence.begin(), stmt->sequence.end(), containsThreadLoop);
  case StmtKind::Store:
  case StmtKind::Barrier:
    return false;
  }
  return false;
}

class LaunchFinder {
public:
  LaunchFinder(const std::string& kernel, CudaLaunch& launch) : kernel_(kernel), launch_(launch) {}

  void visit(const te::Stmt& stmt) {
    switch (stmt->kind) {
    case StmtKind::For:
      visitFor(*stmt);
      break;
    case StmtKind::Allocate:
      if (stmt->buffer->scope == te::BufferScope::Shared) {
        if (sharedBuffers_.insert(stmt->buffer.get()).second)
          sharedBytes_ += stmt->buffer->elements * graph::dataTypeBytes(stmt->buffer->dtype);
      } else if (threadDepth_ == 0 && containsThreadLoop(stmt->body)) {
        // Outside every thread loop, a local buffer would be each thread's own copy of what the
        // whole block should share.
        throw Error("kernel " + kernel_ + ": local buffer '" + stmt->buffer->name +
                    "' is computed for a whole block and read by its threads; it must be a "
                    "shared buffer (cache_read into \"shared\")");
      }
      visit(stmt->body);
      break;
    case StmtKind::IfThenElse:
      ++conditionDepth_;
      visit(stmt->body);
      if (stmt->elseBody)
        visit(stmt->elseBody);
      --conditionDepth_;
      break;
    case StmtKind::Barrier:
      // Every thread of the block must reach a barrier: not under a condition, nor under a
      // thread loop shorter than the launch (checked once the launch is known).
      if (conditionDepth_ > 0)
        throw Error("kernel " + kernel_ +
                    ": a barrier under a condition, which some threads "
                    "would skip");
      barrierLoops_.push_back(enclosingThreadLoops_);
      break;
    case StmtKind::Sequence:
      for (const te::Stmt& statement : stmt->sequence)
        visit(statement);
      break;
    case StmtKind::Store:
      break;
    }
  }

  // After visit(): the checks that need the whole launch.
  void finish(const CudaTarget& target) {
    for (const auto& loops : barrierLoops_)
      for (const auto& [kind, extent] : loops)
        if (extent < launch_.block[*threadAxis(kind)])
          throw Error("kernel " + kernel_ + ": a barrier inside a " + te::forKindName(kind) +
                      " loop of " + std::to_string(extent) + ", shorter than the block's " +
                      std::to_string(launch_.block[*threadAxis(kind)]) +
                      " threads: the others would never reach it");
    if (sharedBytes_ > target.maxSharedMemoryPerBlock)
      throw Error("kernel " + kernel_ + ": " + std::to_string(sharedBytes_) +
                  " bytes of shared memory per block, more than the target's " +
                  std::to_string(target.maxSharedMemoryPerBlock));
  }

private:
  void visitFor(const te::StmtNode& loop) {
    const std::string name = "loop '" + loop.loopVar->name + "'";
    if (loop.forKind == ForKind::Parallel)
      throw Error("kernel " + kernel_ + ": " + name +
                  " is a CPU parallel loop; on a GPU, bind it to blockIdx or threadIdx");
    bool& active = boundNow_[static_cast<std::size_t>(loop.forKind)];
    const auto axis = threadAxis(loop.forKind);
    // A thread loop inside one of its own kind runs on the same threads (a shared buffer's
    // cooperative fetch inside the compute's thread loop): it must not need more of them.
    const std::int64_t enclosing = axis ? enclosingExtent(loop.forKind) : 0;
    if (te::isThreadBound(loop.forKind) && active && (!axis || loop.extent > enclosing))
      throw Error("kernel " + kernel_ + ": " + name + " is bound to " +
                  te::forKindName(loop.forKind) + " inside another loop bound to it" +
                  (axis ? " and longer than it (" + std::to_string(loop.extent) + " > " +
                              std::to_string(enclosing) + ")"
                        : std::string()));
    if (const auto axis = blockAxis(loop.forKind)) {
      if (threadDepth_ > 0)
        throw Error("kernel " + kernel_ + ": " + name + " is bound to " +
                    te::forKindName(loop.forKind) + " inside a thread loop");
      launch_.grid[*axis] = std::max(launch_.grid[*axis], loop.extent);
    }
    if (axis)
      launch_.block[*axis] = std::max(launch_.block[*axis], loop.extent);
    const bool wasActive = active;
    active = te::isThreadBound(loop.forKind);
    threadDepth_ += axis ? 1 : 0;
    if (axis)
      enclosingThreadLoops_.push_back({loop.forKind, loop.extent});
    visit(loop.body);
    if (axis)
      enclosingThreadLoops_.pop_back();
    threadDepth_ -= axis ? 1 : 0;
    active = wasActive;
  }

  std::int64_t enclosingExtent(ForKind kind) const {
    for (auto loop = enclosingThreadLoops_.rbegin(); loop != enclosingThreadLoops_.rend(); ++loop)
      if (loop->first == kind)
        return loop->second;
    return 0;
  }

  const std::string& kernel_;
  CudaLaunch& launch_;
  int threadDepth_ = 0;
  int conditionDepth_ = 0;
  bool boundNow_[16] = {};
  std::vector<std::pair<ForKind, std::int64_t>> enclosingThreadLoops_;
  std::vector<std::vector<std::pair<ForKind, std::int64_t>>> barrierLoops_;
  std::set<const te::BufferNode*> sharedBuffers_;
  std::int64_t sharedBytes_ = 0;
};

void checkLimits(const CudaLaunch& launch, const CudaTarget& target) {
  // CUDA's limits on the launch dimensions, the same on every architecture since sm_30.
  constexpr std::int64_t maxGrid[3] = {(std::int64_t{1} << 31) - 1, 65535, 65535};
  constexpr std::int64_t maxBlock[3] = {1024, 1024, 64};
  constexpr const char* axes[3] = {"x", "y", "z"};
  std::int64_t threads = 1;
  for (std::size_t axis = 0; axis < 3; ++axis) {
    if (launch.grid[axis] > maxGrid[axis])
      throw Error("kernel " + launch.kernel + ": " + std::to_string(launch.grid[axis]) +
                  " blocks along " + axes[axis] + ", more than CUDA's " +
                  std::to_string(maxGrid[axis]));
    if (launch.block[axis] > maxBlock[axis])
      throw Error("kernel " + launch.kernel + ": " + std::to_string(launch.block[axis]) +
                  " threads along " + axes[axis] + ", more than CUDA's " +
                  std::to_string(maxBlock[axis]));
    threads *= launch.block[axis];
  }
  if (threads > target.maxThreadsPerBlock)
    throw Error("kernel " + launch.kernel + ": " + std::to_string(threads) +
                " threads per block, more than the target's " +
                std::to_string(target.maxThreadsPerBlock));
}

} // namespace

FunctionPlan planKernels(const te::LoweredFunction& function, const CudaTarget& target) {
  if (function.name.empty())
    throw Error("a kernel needs a name");
  if (!function.body)
    throw Error("kernel " + function.name + " has no body");
  FunctionPlan plan;
  te::Stmt root = function.body;
  // A shared buffer around a kernel's first loop belongs to that kernel, not to the workspace.
  while (root->kind == StmtKind::Allocate && root->buffer->scope != te::BufferScope::Shared) {
    plan.workspace.push_back(root->buffer);
    root = root->body;
  }
  const std::vector<te::Stmt> statements =
      root->kind == StmtKind::Sequence ? root->sequence : std::vector<te::Stmt>{root};
  for (const te::Stmt& statement : statements) {
    KernelPlan kernel{statement, {}};
    kernel.launch.kernel = function.name + "_kernel" + std::to_string(plan.kernels.size());
    LaunchFinder finder(kernel.launch.kernel, kernel.launch);
    finder.visit(statement);
    checkLimits(kernel.launch, target);
    finder.finish(target);
    plan.kernels.push_back(std::move(kernel));
  }
  return plan;
}

} // namespace clustune::codegen::cuda
