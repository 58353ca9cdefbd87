// See KernelPlan.h.
#include "codegen/cuda/KernelPlan.h"

#include "support/Error.h"

#include <algorithm>
#include <optional>

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
      // Outside every thread loop, a buffer is one per block; written and read under thread
      // loops, its threads would each see only their own private copy.
      if (threadDepth_ == 0 && containsThreadLoop(stmt->body))
        throw Error("kernel " + kernel_ + ": buffer '" + stmt->buffer->name +
                    "' is computed for a whole block and shared by its threads; that needs "
                    "shared memory and barriers, which the CUDA back end does not lower yet");
      visit(stmt->body);
      break;
    case StmtKind::IfThenElse:
      visit(stmt->body);
      if (stmt->elseBody)
        visit(stmt->elseBody);
      break;
    case StmtKind::Sequence:
      for (const te::Stmt& statement : stmt->sequence)
        visit(statement);
      break;
    case StmtKind::Store:
      break;
    }
  }

private:
  void visitFor(const te::StmtNode& loop) {
    const std::string name = "loop '" + loop.loopVar->name + "'";
    if (loop.forKind == ForKind::Parallel)
      throw Error("kernel " + kernel_ + ": " + name +
                  " is a CPU parallel loop; on a GPU, bind it to blockIdx or threadIdx");
    bool& active = boundNow_[static_cast<std::size_t>(loop.forKind)];
    if (te::isThreadBound(loop.forKind) && active)
      throw Error("kernel " + kernel_ + ": " + name + " is bound to " +
                  te::forKindName(loop.forKind) + " inside another loop bound to it");
    if (const auto axis = blockAxis(loop.forKind)) {
      if (threadDepth_ > 0)
        throw Error("kernel " + kernel_ + ": " + name + " is bound to " +
                    te::forKindName(loop.forKind) + " inside a thread loop");
      launch_.grid[*axis] = std::max(launch_.grid[*axis], loop.extent);
    }
    const auto axis = threadAxis(loop.forKind);
    if (axis)
      launch_.block[*axis] = std::max(launch_.block[*axis], loop.extent);
    active = te::isThreadBound(loop.forKind);
    threadDepth_ += axis ? 1 : 0;
    visit(loop.body);
    threadDepth_ -= axis ? 1 : 0;
    active = false;
  }

  const std::string& kernel_;
  CudaLaunch& launch_;
  int threadDepth_ = 0;
  bool boundNow_[16] = {};
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
  while (root->kind == StmtKind::Allocate) {
    plan.workspace.push_back(root->buffer);
    root = root->body;
  }
  const std::vector<te::Stmt> statements =
      root->kind == StmtKind::Sequence ? root->sequence : std::vector<te::Stmt>{root};
  for (const te::Stmt& statement : statements) {
    KernelPlan kernel{statement, {}};
    kernel.launch.kernel = function.name + "_kernel" + std::to_string(plan.kernels.size());
    LaunchFinder(kernel.launch.kernel, kernel.launch).visit(statement);
    checkLimits(kernel.launch, target);
    plan.kernels.push_back(std::move(kernel));
  }
  return plan;
}

} // namespace clustune::codegen::cuda
