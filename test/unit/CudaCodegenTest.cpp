// The CUDA code generator (codegen/cuda/CudaCodegen.h) without a GPU: how lowered functions
// with thread bindings split into kernels and launches, what it refuses, the NVPTX IR of a
// kernel, and PTX that ptxas assembles for sm_90 (where the CUDA toolkit is installed; the
// test is skipped elsewhere). Whether the kernels compute the right values is checked on a GPU
// by the device tests (docs/cuda.md).
#include "codegen/cuda/CudaCodegen.h"

#include "ScheduleTestSupport.h"
#include "codegen/cuda/KernelPlan.h"
#include "codegen/cuda/Ptxas.h"
#include "support/Error.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace clustune;
using namespace clustune::schedule;
using namespace clustune::schedule::testing;
using codegen::CudaTarget;

namespace {

CudaTarget h200() {
  return codegen::loadCudaTarget(std::string(CLUSTUNE_SOURCE_DIR) +
                                 "/configs/targets/nvidia-h200.json");
}

// C[i, j] = sum_k A[i, k] B[k, j] with i on blocks along x, j split into blocks along y,
// virtual threads and threads.
te::LoweredFunction boundMatmul(std::int64_t m, std::int64_t n, std::int64_t threads) {
  const TestWorkload test = matmul(m, n, 16);
  const State state =
      replay(test.workload,
             {SplitStep{.stage = 0, .iterator = 1, .factors = {2, threads}},
              AnnotationStep{.stage = 0, .iterator = 0, .annotation = Annotation::BlockIdxX},
              AnnotationStep{.stage = 0, .iterator = 1, .annotation = Annotation::BlockIdxY},
              AnnotationStep{.stage = 0, .iterator = 2, .annotation = Annotation::VThread},
              AnnotationStep{.stage = 0, .iterator = 3, .annotation = Annotation::ThreadIdxX}});
  return lower(test.workload, state, "matmul");
}

// Softmax with every stage's rows on blocks and its columns (where it has spatial ones) on
// threads: four kernels, three root buffers between them.
te::LoweredFunction boundSoftmax() {
  const TestWorkload test = softmax(8, 64);
  std::vector<Step> steps;
  for (int stage = 0; stage < 4; ++stage) {
    steps.emplace_back(
        AnnotationStep{.stage = stage, .iterator = 0, .annotation = Annotation::BlockIdxX});
    if (stage % 2 == 1)
      steps.emplace_back(
          AnnotationStep{.stage = stage, .iterator = 1, .annotation = Annotation::ThreadIdxX});
  }
  return lower(test.workload, replay(test.workload, steps), "softmax");
}

std::string refusal(const te::LoweredFunction& function, const CudaTarget& target = h200()) {
  try {
    codegen::cuda::planKernels(function, target);
  } catch (const Error& error) {
    return error.what();
  }
  return "(accepted)";
}

// ptxas from the CUDA toolkit, or "" where it is not installed.
std::string findPtxas() {
  return codegen::findPtxas().value_or("");
}

bool hasLibdevice() {
  return std::filesystem::exists("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc") ||
         std::getenv("CLUSTUNE_LIBDEVICE") || std::getenv("CUDA_HOME");
}

// Whether ptxas assembles `ptx` for `arch`; its messages in `log` when not.
bool assembles(const std::string& ptxas, const std::string& ptx, const std::string& arch,
               std::string& log) {
  try {
    return !codegen::assembleCubin(ptx, arch, ptxas).empty();
  } catch (const Error& error) {
    log = error.what();
    return false;
  }
}

} // namespace

TEST(CudaTarget, ShippedGpusLoad) {
  const CudaTarget target = h200();
  EXPECT_EQ(target.arch, "sm_90");
  EXPECT_EQ(target.smCount, 132);
  EXPECT_EQ(target.maxThreadsPerBlock, 1024);
  const CudaTarget a100 = codegen::loadCudaTarget(std::string(CLUSTUNE_SOURCE_DIR) +
                                                  "/configs/targets/nvidia-a100.json");
  EXPECT_EQ(a100.arch, "sm_80");
  EXPECT_EQ(
      codegen::targetKind(std::string(CLUSTUNE_SOURCE_DIR) + "/configs/targets/x86_64-avx2.json"),
      "cpu");
  EXPECT_THROW(codegen::loadCudaTarget(std::string(CLUSTUNE_SOURCE_DIR) +
                                       "/configs/targets/x86_64-avx2.json"),
               Error);
}

TEST(CudaKernelPlan, BoundLoopsGiveTheLaunch) {
  const auto plan = codegen::cuda::planKernels(boundMatmul(8, 256, 64), h200());
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_TRUE(plan.workspace.empty());
  const codegen::CudaLaunch& launch = plan.kernels[0].launch;
  EXPECT_EQ(launch.kernel, "matmul_kernel0");
  EXPECT_EQ(launch.grid, (std::array<std::int64_t, 3>{8, 2, 1}));
  EXPECT_EQ(launch.block, (std::array<std::int64_t, 3>{64, 1, 1}));
}

TEST(CudaKernelPlan, EachRootStatementIsAKernelAndRootBuffersAreWorkspace) {
  const auto plan = codegen::cuda::planKernels(boundSoftmax(), h200());
  ASSERT_EQ(plan.kernels.size(), 4u);
  ASSERT_EQ(plan.workspace.size(), 3u);
  EXPECT_EQ(plan.workspace[0]->name, "M");
  EXPECT_EQ(plan.kernels[0].launch.grid[0], 8);
  EXPECT_EQ(plan.kernels[0].launch.block[0], 1);
  EXPECT_EQ(plan.kernels[1].launch.block[0], 64);
  EXPECT_EQ(plan.kernels[3].launch.kernel, "softmax_kernel3");
}

TEST(CudaKernelPlan, RefusesWhatItCannotLaunchOrLower) {
  EXPECT_EQ(refusal(boundMatmul(8, 4096, 2048)),
            "kernel matmul_kernel0: 2048 threads along x, more than CUDA's 1024");
  CudaTarget small = h200();
  small.maxThreadsPerBlock = 32;
  EXPECT_EQ(refusal(boundMatmul(8, 256, 64), small),
            "kernel matmul_kernel0: 64 threads per block, more than the target's 32");

  const TestWorkload product = matmul(8, 8, 4);
  EXPECT_EQ(
      refusal(lower(
          product.workload,
          replay(product.workload,
                 {AnnotationStep{.stage = 0, .iterator = 0, .annotation = Annotation::Parallel}}),
          "f")),
      "kernel f_kernel0: loop 'C.i0' is a CPU parallel loop; on a GPU, bind it to blockIdx "
      "or threadIdx");
  EXPECT_EQ(
      refusal(lower(
          product.workload,
          replay(product.workload,
                 {AnnotationStep{.stage = 0, .iterator = 0, .annotation = Annotation::ThreadIdxX},
                  AnnotationStep{.stage = 0, .iterator = 1, .annotation = Annotation::BlockIdxX}}),
          "f")),
      "kernel f_kernel0: loop 'C.i1' is bound to blockIdx.x inside a thread loop");

  // A local buffer computed per block whose loops are bound to threads: each thread would
  // have its own copy; it must be a shared one.
  const TestWorkload chain = elementwiseChain(4, 32);
  const State shared =
      replay(chain.workload,
             {ComputeInlineStep{.stage = 1},
              AnnotationStep{.stage = 2, .iterator = 0, .annotation = Annotation::BlockIdxX},
              ComputeAtStep{.stage = 0, .targetStage = 2, .targetIterator = 0},
              AnnotationStep{.stage = 0, .iterator = 1, .annotation = Annotation::ThreadIdxX},
              AnnotationStep{.stage = 2, .iterator = 1, .annotation = Annotation::ThreadIdxX}});
  EXPECT_EQ(refusal(lower(chain.workload, shared, "f")),
            "kernel f_kernel0: local buffer 'T1' is computed for a whole block and read by its "
            "threads; it must be a shared buffer (cache_read into \"shared\")");

  // Shared memory beyond the target's, and a cooperative fetch needing more threads than the
  // block's compute loop has.
  const TestWorkload gemm = matmul(64, 64, 64);
  const te::LoweredFunction sharedGemm =
      lower(gemm.workload, replay(gemm.workload, sharedMemoryMatmulSteps()), "g");
  CudaTarget littleShared = h200();
  littleShared.maxSharedMemoryPerBlock = 1000;
  EXPECT_EQ(refusal(sharedGemm, littleShared),
            "kernel g_kernel0: 1024 bytes of shared memory per block, more than the target's 1000");
  std::vector<Step> wideFetch = sharedMemoryMatmulSteps();
  wideFetch[wideFetch.size() - 2] = SplitStep{.stage = 0, .iterator = 0, .factors = {128}};
  EXPECT_EQ(refusal(lower(gemm.workload, replay(gemm.workload, wideFetch), "g")),
            "kernel g_kernel0: loop 'B.shared.i0@B.shared.i1.1' is bound to threadIdx.x inside "
            "another loop bound to it and longer than it (128 > 64)");
}

TEST(CudaCodegen, AVectorizedFetchStoresFourFloatsAtOnceIntoSharedMemory) {
  // A's copy fetched as 32 threads x 4 contiguous floats: 16-byte aligned rows of 8.
  std::vector<Step> steps = sharedMemoryMatmulSteps();
  steps[steps.size() - 5] = SplitStep{.stage = 1, .iterator = 0, .factors = {32, 4}};
  steps.insert(steps.end() - 3,
               AnnotationStep{.stage = 1, .iterator = 2, .annotation = Annotation::Vectorize});
  const TestWorkload gemm = matmul(64, 64, 64);
  const codegen::CudaModule module =
      codegen::compileToPtx(lower(gemm.workload, replay(gemm.workload, steps), "g"), h200());
  // The shared index is the fused one, 4-aligned at lane 0; the global index goes through the
  // tile's // 8 and % 8, constant and moving by one across 4 lanes that start at a multiple of
  // 4: one vector load through the non-coherent cache.
  EXPECT_NE(module.ptx.find("st.shared.v4.f32"), std::string::npos) << module.ptx;
  EXPECT_NE(module.ptx.find("ld.global.nc.v4.f32"), std::string::npos) << module.ptx;
}

TEST(CudaCodegen, SharedCopiesAreAddressSpace3ArraysBetweenBarriers) {
  const TestWorkload gemm = matmul(64, 64, 64);
  const te::LoweredFunction function =
      lower(gemm.workload, replay(gemm.workload, sharedMemoryMatmulSteps()), "g");
  const codegen::CudaModule module = codegen::compileToPtx(function, h200());
  ASSERT_EQ(module.launches.size(), 1u);
  EXPECT_EQ(module.launches[0].grid, (std::array<std::int64_t, 3>{16, 1, 1}));
  EXPECT_EQ(module.launches[0].block, (std::array<std::int64_t, 3>{64, 1, 1}));
  EXPECT_NE(module.ptx.find(".shared .align 16 .b8 g_kernel0_A_shared[512]"), std::string::npos)
      << module.ptx;
  EXPECT_NE(module.ptx.find(".shared .align 16 .b8 g_kernel0_B_shared[512]"), std::string::npos)
      << module.ptx;
  EXPECT_NE(module.ptx.find("bar.sync"), std::string::npos) << module.ptx;
  EXPECT_NE(module.ptx.find("st.shared.f32"), std::string::npos) << module.ptx;
  EXPECT_NE(module.ptx.find("ld.shared.f32"), std::string::npos) << module.ptx;
  const std::string ptxas = findPtxas();
  if (ptxas.empty())
    GTEST_SKIP() << "no ptxas: the CUDA toolkit is not installed";
  std::string log;
  EXPECT_TRUE(assembles(ptxas, module.ptx, "sm_90", log)) << log << module.ptx;
}

TEST(CudaCodegen, CrossThreadReductionsFoldInSharedMemoryBetweenBarriers) {
  const TestWorkload gemm = matmul(4, 3, 100);
  const codegen::CudaModule reduction = codegen::compileToPtx(
      lower(gemm.workload, replay(gemm.workload, crossThreadMatmulSteps(32)), "g"), h200());
  ASSERT_EQ(reduction.launches.size(), 1u);
  EXPECT_EQ(reduction.launches[0].grid, (std::array<std::int64_t, 3>{12, 1, 1}));
  EXPECT_EQ(reduction.launches[0].block, (std::array<std::int64_t, 3>{32, 1, 1}));
  EXPECT_NE(reduction.ptx.find(".shared .align 16 .b8 g_kernel0_C_partials[128]"),
            std::string::npos)
      << reduction.ptx;
  // The row maximum that thread 0 stores is read by the block's ten threads: shared too.
  const TestWorkload rows = softmax(3, 10);
  const codegen::CudaModule attached = codegen::compileToPtx(
      lower(rows.workload, replay(rows.workload, crossThreadSoftmaxSteps()), "s"), h200());
  EXPECT_EQ(attached.launches[0].block, (std::array<std::int64_t, 3>{10, 1, 1}));
  // (One float: LLVM makes the one-element array a scalar.)
  EXPECT_NE(attached.ptx.find(".shared .align 16 .f32 s_kernel0_M"), std::string::npos)
      << attached.ptx;
  EXPECT_NE(attached.ptx.find("s_kernel0_M_partials[40]"), std::string::npos) << attached.ptx;
  for (const codegen::CudaModule* module : {&reduction, &attached})
    EXPECT_NE(module->ptx.find("bar.sync"), std::string::npos) << module->ptx;
  const std::string ptxas = findPtxas();
  if (ptxas.empty())
    GTEST_SKIP() << "no ptxas: the CUDA toolkit is not installed";
  for (const codegen::CudaModule* module : {&reduction, &attached}) {
    std::string log;
    EXPECT_TRUE(assembles(ptxas, module->ptx, "sm_90", log)) << log << module->ptx;
  }
}

TEST(CudaCodegen, KernelsReadTheirIndicesFromSpecialRegisters) {
  const std::string ir = codegen::emitNvptxIr(boundMatmul(8, 256, 64), h200(), false);
  EXPECT_NE(ir.find("define ptx_kernel void @matmul_kernel0("), std::string::npos) << ir;
  EXPECT_NE(ir.find("@llvm.nvvm.read.ptx.sreg.ctaid.x()"), std::string::npos) << ir;
  EXPECT_NE(ir.find("@llvm.nvvm.read.ptx.sreg.ctaid.y()"), std::string::npos) << ir;
  EXPECT_NE(ir.find("@llvm.nvvm.read.ptx.sreg.tid.x()"), std::string::npos) << ir;
  EXPECT_NE(ir.find("!\"maxntidx\", i32 64"), std::string::npos) << ir;
}

TEST(CudaCodegen, PtxAssemblesForSm90) {
  const codegen::CudaModule module = codegen::compileToPtx(boundMatmul(8, 256, 64), h200());
  EXPECT_NE(module.ptx.find(".target sm_90"), std::string::npos) << module.ptx;
  EXPECT_NE(module.ptx.find(".entry matmul_kernel0"), std::string::npos) << module.ptx;
  EXPECT_NE(module.ptx.find("%tid.x"), std::string::npos) << module.ptx;
  EXPECT_NE(module.ptx.find("ld.global"), std::string::npos) << module.ptx;
  EXPECT_NE(module.ptx.find("st.global"), std::string::npos) << module.ptx;
  const std::string ptxas = findPtxas();
  if (ptxas.empty())
    GTEST_SKIP() << "no ptxas: the CUDA toolkit is not installed";
  std::string log;
  EXPECT_TRUE(assembles(ptxas, module.ptx, "sm_90", log)) << log << module.ptx;
}

TEST(CudaCodegen, MathFunctionsComeFromLibdevice) {
  if (!hasLibdevice())
    GTEST_SKIP() << "no libdevice: the CUDA toolkit is not installed";
  const codegen::CudaModule module = codegen::compileToPtx(boundSoftmax(), h200());
  ASSERT_EQ(module.launches.size(), 4u);
  ASSERT_EQ(module.workspace.size(), 3u);
  EXPECT_EQ(module.workspace[1].bytes, 8 * 64 * 4); // E
  // __nv_expf, inlined: an ex2 instruction, no call left.
  EXPECT_NE(module.ptx.find("ex2.approx"), std::string::npos) << module.ptx;
  EXPECT_EQ(module.ptx.find("call"), std::string::npos) << module.ptx;
  const std::string ptxas = findPtxas();
  if (ptxas.empty())
    GTEST_SKIP() << "no ptxas";
  std::string log;
  EXPECT_TRUE(assembles(ptxas, module.ptx, "sm_90", log)) << log;
}

// Candidates are assembled on the build cores (Ptxas.h): a cubin for the target's arch, or
// ptxas's own words when it refuses the PTX. CLUSTUNE_PTXAS picks another ptxas or none.
TEST(CudaPtxas, AssemblesCubinsAndSaysWhyItRefuses) {
  const std::string ptxas = findPtxas();
  if (ptxas.empty())
    GTEST_SKIP() << "no ptxas: the CUDA toolkit is not installed";
  codegen::CudaModule module = codegen::compileToPtx(boundMatmul(8, 256, 64), h200());
  codegen::attachCubin(module, h200());
  ASSERT_GE(module.cubin.size(), 4u);
  EXPECT_EQ(module.cubin.substr(0, 4), "\x7f"
                                       "ELF");

  std::string broken = module.ptx;
  broken.replace(broken.find("%tid.x"), 6, "%nosuchregister");
  try {
    codegen::assembleCubin(broken, "sm_90", ptxas);
    ADD_FAILURE() << "ptxas accepted broken PTX";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("ptxas refused the PTX for sm_90"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("nosuchregister"), std::string::npos) << error.what();
  }
}

TEST(CudaPtxas, TheEnvironmentChoosesPtxasOrNone) {
  const char* saved = std::getenv("CLUSTUNE_PTXAS");
  const std::string before = saved ? saved : "";
  ::setenv("CLUSTUNE_PTXAS", "none", 1);
  EXPECT_FALSE(codegen::findPtxas().has_value());
  ::setenv("CLUSTUNE_PTXAS", "/nonexistent/ptxas", 1);
  EXPECT_THROW(codegen::findPtxas(), Error);
  if (saved)
    ::setenv("CLUSTUNE_PTXAS", before.c_str(), 1);
  else
    ::unsetenv("CLUSTUNE_PTXAS");
}
