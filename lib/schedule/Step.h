// Schedule steps (DESIGN §4.4): the primitive transformations that, replayed in order on the
// initial State of a workload, describe a schedule, exactly as Ansor's transform steps do. Steps
// are plain data that name stages by index into State::stages() and iterators by their position
// in the stage's current loop order, so a schedule is a list of small JSON objects that a record
// stores and replays bit for bit. The effect of each step lives in State.cpp; adding a step is
// one struct here, one case in the JSON functions and one apply function there.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

namespace clustune::schedule {

// Parallel, Vectorize and Unroll are CPU loop kinds; the others bind a loop to a GPU block,
// thread or virtual thread, as Ansor's GPU sketches do.
enum class Annotation {
  None,
  Parallel,
  Vectorize,
  Unroll,
  BlockIdxX,
  BlockIdxY,
  BlockIdxZ,
  VThread,
  ThreadIdxX,
  ThreadIdxY,
  ThreadIdxZ
};

// "none", "parallel", "vectorize", "unroll", "blockIdx.x" (.y, .z), "vthread", "threadIdx.x" (.y,
// .z): the names schedules use in JSON.
const char* annotationName(Annotation annotation);
bool isThreadBinding(Annotation annotation);

// The scopes cache_read accepts: "local" and "global" (which lower alike on a CPU), and
// "shared", a GPU block's shared memory (docs/cuda.md), which CPU code generation refuses.
bool isCacheReadScope(const std::string& scope);

// Splits an iterator of extent E into factors.size() + 1 nested iterators: the outermost has
// extent ceil(E / product(factors)), the others have the given factors, outermost first (Ansor's
// split with inner_to_outer). A factor product that does not divide E leaves a guard.
struct SplitStep {
  int stage = 0;
  int iterator = 0;
  std::vector<std::int64_t> factors;
  friend bool operator==(const SplitStep&, const SplitStep&) = default;
};

// Fuses adjacent iterators (given outermost first, consecutive) into one.
struct FuseStep {
  int stage = 0;
  std::vector<int> iterators;
  friend bool operator==(const FuseStep&, const FuseStep&) = default;
};

// New loop order: order[k] is the current position of the iterator that becomes k-th.
struct ReorderStep {
  int stage = 0;
  std::vector<int> order;
  friend bool operator==(const ReorderStep&, const ReorderStep&) = default;
};

struct AnnotationStep {
  int stage = 0;
  int iterator = 0;
  Annotation annotation = Annotation::None;
  friend bool operator==(const AnnotationStep&, const AnnotationStep&) = default;
};

// Computes `stage` inside loop `targetIterator` of `targetStage`, for the region that one
// iteration of that loop reads.
struct ComputeAtStep {
  int stage = 0;
  int targetStage = 0;
  int targetIterator = 0;
  friend bool operator==(const ComputeAtStep&, const ComputeAtStep&) = default;
};

struct ComputeInlineStep {
  int stage = 0;
  friend bool operator==(const ComputeInlineStep&, const ComputeInlineStep&) = default;
};

struct ComputeRootStep {
  int stage = 0;
  friend bool operator==(const ComputeRootStep&, const ComputeRootStep&) = default;
};

// Ansor's pragma auto_unroll_max_step: code generation fully unrolls inner loops of the stage
// whose total trip count is at most this value (0 = none).
struct PragmaStep {
  int stage = 0;
  int iterator = 0;
  int autoUnrollMaxStep = 0;
  friend bool operator==(const PragmaStep&, const PragmaStep&) = default;
};

// Ansor's cache_write: the stage's computation moves to a new stage "<name>.local" that writes
// a buffer of scope `scope` (only "local" on CPU), and the stage becomes a copy of it. The new
// stage takes index `stage` and the copy index stage + 1; every later stage's index grows by
// one, as in Ansor. Computing the cache stage at a tile loop of the copy keeps the tile's
// accumulators in a small local buffer that is written out once.
struct CacheWriteStep {
  int stage = 0;
  std::string scope = "local";
  friend bool operator==(const CacheWriteStep&, const CacheWriteStep&) = default;
};

// Ansor's cache_read: a new stage "<tensor>.<scope>" copies the tensor that `stage` computes or,
// with stage == -1, workload input `input`; the `readers` (stage indices, each loading the
// tensor directly) are rebuilt to load the copy instead, other readers keep the original. The
// copy takes index stage + 1 (0 for an input) and every later stage's index grows by one, as
// in Ansor. Computing the copy at a tile loop of its reader makes it the packed tile that one
// iteration reads (e.g. a K-block x N-block panel of a GEMM's B, contiguous). Scopes "local"
// and "global" lower alike on CPU: a buffer of the kernel's own.
struct CacheReadStep {
  int stage = -1;
  int input = -1;
  std::string scope = "local";
  std::vector<int> readers = {};
  friend bool operator==(const CacheReadStep&, const CacheReadStep&) = default;
};

// Ansor's rfactor (TVM's rfactor with factor_axis): the reduce iterator at loop position
// `iterator` becomes a spatial axis of a new stage "<name>.rf" that computes partial results
// over the stage's other reduce iterators; the stage then reduces the partial results over that
// axis. The new axis is dimension `factorIteratorPosition` of the partial tensor (0 to the
// number of spatial axes). The partial stage takes index `stage`, the final reduction index
// stage + 1, and later stages shift by one, as with cache_write.
struct RfactorStep {
  int stage = 0;
  int iterator = 0;
  int factorIteratorPosition = 0;
  friend bool operator==(const RfactorStep&, const RfactorStep&) = default;
};

using Step =
    std::variant<SplitStep, FuseStep, ReorderStep, AnnotationStep, ComputeAtStep, ComputeInlineStep,
                 ComputeRootStep, PragmaStep, CacheWriteStep, CacheReadStep, RfactorStep>;

// The step's JSON name ("split", "fuse", ...), also used in error messages.
const char* stepName(const Step& step);
// The step's `stage` field: -1 for a cache_read of a workload input.
int stepStage(const Step& step);

// One object per step, e.g. {"step":"split","stage":2,"iterator":0,"factors":[8,4]}; fields in a
// fixed order so that equal schedules serialise to equal text.
nlohmann::ordered_json toJson(const Step& step);
nlohmann::ordered_json toJson(const std::vector<Step>& steps);

// Validates every field (presence, integer type, known names, no unknown fields) and throws
// clustune::Error naming the problem. Whether the step applies to a state is checked by
// applyStep().
Step stepFromJson(const nlohmann::json& json);
Step stepFromJson(const nlohmann::ordered_json& json);
std::vector<Step> stepsFromJson(const nlohmann::json& json);
std::vector<Step> stepsFromJson(const nlohmann::ordered_json& json);

// A one-line rendering, e.g. "split(stage 2, iterator 0, factors [8, 4])".
std::string toString(const Step& step);

// The schedule's canonical text (its JSON dump): what "the same schedule" means when a run
// resumes, a search skips what was measured or results are deduplicated.
std::string scheduleText(const std::vector<Step>& steps);

} // namespace clustune::schedule
