// See JitLoader.h. The math functions are bound explicitly, by address, rather than only
// through the process's dynamic symbol table: clustune_parallel_for lives in a static library
// linked into the executable, which does not export its symbols unless linked with -rdynamic.
#include "codegen/cpu/JitLoader.h"

#include "codegen/cpu/LlvmInit.h"
#include "codegen/cpu/VectorMath.h"
#include "runtime/ThreadPool.h"
#include "support/Error.h"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/MemoryBuffer.h>
#include <utility>

namespace clustune::codegen {
namespace {

// Deliberately never destroyed: a LoadedKernel that outlives main (in a static cache) must
// still find the JIT to give its code back; the process's exit reclaims the memory.
llvm::orc::LLJIT& processJit() {
  static llvm::orc::LLJIT* const jit = [] {
    initializeNativeLlvmTarget();
    auto created = llvm::orc::LLJITBuilder().create();
    if (!created)
      throw Error("cannot start the LLVM JIT: " + llvm::toString(created.takeError()));
    return created->release();
  }();
  return *jit;
}

template <class Function>
llvm::orc::ExecutorSymbolDef functionSymbol(Function* function) {
  return {llvm::orc::ExecutorAddr::fromPtr(function),
          llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
}

llvm::orc::SymbolMap runtimeSymbols(llvm::orc::LLJIT& jit) {
  using Unary = float(float);
  using UnaryDouble = double(double);
  using Binary = float(float, float);
  using BinaryDouble = double(double, double);
  llvm::orc::SymbolMap symbols{
      {jit.mangleAndIntern("clustune_parallel_for"), functionSymbol(&clustune_parallel_for)},
      {jit.mangleAndIntern("malloc"), functionSymbol(&std::malloc)},
      {jit.mangleAndIntern("free"), functionSymbol(&std::free)},
      {jit.mangleAndIntern("memset"), functionSymbol(&std::memset)},
      {jit.mangleAndIntern("memcpy"), functionSymbol(&std::memcpy)},
      {jit.mangleAndIntern("memmove"), functionSymbol(&std::memmove)},
      {jit.mangleAndIntern("expf"), functionSymbol(static_cast<Unary*>(&::expf))},
      {jit.mangleAndIntern("logf"), functionSymbol(static_cast<Unary*>(&::logf))},
      {jit.mangleAndIntern("tanhf"), functionSymbol(static_cast<Unary*>(&::tanhf))},
      {jit.mangleAndIntern("erff"), functionSymbol(static_cast<Unary*>(&::erff))},
      {jit.mangleAndIntern("powf"), functionSymbol(static_cast<Binary*>(&::powf))},
      {jit.mangleAndIntern("fmodf"), functionSymbol(static_cast<Binary*>(&::fmodf))},
      {jit.mangleAndIntern("exp"), functionSymbol(static_cast<UnaryDouble*>(&::exp))},
      {jit.mangleAndIntern("log"), functionSymbol(static_cast<UnaryDouble*>(&::log))},
      {jit.mangleAndIntern("tanh"), functionSymbol(static_cast<UnaryDouble*>(&::tanh))},
      {jit.mangleAndIntern("erf"), functionSymbol(static_cast<UnaryDouble*>(&::erf))},
      {jit.mangleAndIntern("pow"), functionSymbol(static_cast<BinaryDouble*>(&::pow))},
      {jit.mangleAndIntern("fmod"), functionSymbol(static_cast<BinaryDouble*>(&::fmod))},
      {jit.mangleAndIntern("sinf"), functionSymbol(static_cast<Unary*>(&::sinf))},
      {jit.mangleAndIntern("sin"), functionSymbol(static_cast<UnaryDouble*>(&::sin))},
      {jit.mangleAndIntern("cosf"), functionSymbol(static_cast<Unary*>(&::cosf))},
      {jit.mangleAndIntern("cos"), functionSymbol(static_cast<UnaryDouble*>(&::cos))},
      {jit.mangleAndIntern("tanf"), functionSymbol(static_cast<Unary*>(&::tanf))},
      {jit.mangleAndIntern("tan"), functionSymbol(static_cast<UnaryDouble*>(&::tan))},
      {jit.mangleAndIntern("asinf"), functionSymbol(static_cast<Unary*>(&::asinf))},
      {jit.mangleAndIntern("asin"), functionSymbol(static_cast<UnaryDouble*>(&::asin))},
      {jit.mangleAndIntern("acosf"), functionSymbol(static_cast<Unary*>(&::acosf))},
      {jit.mangleAndIntern("acos"), functionSymbol(static_cast<UnaryDouble*>(&::acos))},
      {jit.mangleAndIntern("atanf"), functionSymbol(static_cast<Unary*>(&::atanf))},
      {jit.mangleAndIntern("atan"), functionSymbol(static_cast<UnaryDouble*>(&::atan))},
      {jit.mangleAndIntern("sinhf"), functionSymbol(static_cast<Unary*>(&::sinhf))},
      {jit.mangleAndIntern("sinh"), functionSymbol(static_cast<UnaryDouble*>(&::sinh))},
      {jit.mangleAndIntern("coshf"), functionSymbol(static_cast<Unary*>(&::coshf))},
      {jit.mangleAndIntern("cosh"), functionSymbol(static_cast<UnaryDouble*>(&::cosh))},
      {jit.mangleAndIntern("asinhf"), functionSymbol(static_cast<Unary*>(&::asinhf))},
      {jit.mangleAndIntern("asinh"), functionSymbol(static_cast<UnaryDouble*>(&::asinh))},
      {jit.mangleAndIntern("acoshf"), functionSymbol(static_cast<Unary*>(&::acoshf))},
      {jit.mangleAndIntern("acosh"), functionSymbol(static_cast<UnaryDouble*>(&::acosh))},
      {jit.mangleAndIntern("atanhf"), functionSymbol(static_cast<Unary*>(&::atanhf))},
      {jit.mangleAndIntern("atanh"), functionSymbol(static_cast<UnaryDouble*>(&::atanh))},
      // The back end may merge a sin and a cos of one value into one sincos call.
      {jit.mangleAndIntern("sincosf"), functionSymbol(&::sincosf)},
      {jit.mangleAndIntern("sincos"), functionSymbol(&::sincos)},
  };
  for (const auto& [name, address] : vectorMathSymbols())
    symbols[jit.mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                          llvm::JITSymbolFlags::Exported |
                                              llvm::JITSymbolFlags::Callable};
  return symbols;
}

} // namespace

LoadedKernel::LoadedKernel(const std::string& objectBytes, const std::string& functionName)
    : functionName_(functionName) {
  llvm::orc::LLJIT& jit = processJit();
  static std::atomic<std::uint64_t> kernelCount{0};
  auto dylib =
      jit.createJITDylib("kernel" + std::to_string(kernelCount.fetch_add(1)) + "." + functionName);
  if (!dylib)
    throw Error("cannot load kernel " + functionName + ": " + llvm::toString(dylib.takeError()));
  llvm::orc::JITDylib& library = *dylib;
  dylib_ = &library;

  // From here on, failures must give the JITDylib back.
  const auto fail = [&](llvm::Error error) {
    const std::string message =
        "cannot load kernel " + functionName + ": " + llvm::toString(std::move(error));
    release();
    throw Error(message);
  };
  if (auto error = library.define(llvm::orc::absoluteSymbols(runtimeSymbols(jit))))
    fail(std::move(error));
  auto processSymbols = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      jit.getDataLayout().getGlobalPrefix());
  if (!processSymbols)
    fail(processSymbols.takeError());
  library.addGenerator(std::move(*processSymbols));

  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(objectBytes, functionName + ".o");
  if (auto error = jit.addObjectFile(library, std::move(buffer)))
    fail(std::move(error));
  auto address = jit.lookup(library, functionName);
  if (!address)
    fail(address.takeError());
  entry_ = address->toPtr<Entry>();
}

LoadedKernel::~LoadedKernel() {
  release();
}

LoadedKernel::LoadedKernel(LoadedKernel&& other) noexcept
    : dylib_(std::exchange(other.dylib_, nullptr)), entry_(std::exchange(other.entry_, nullptr)),
      functionName_(std::move(other.functionName_)) {}

LoadedKernel& LoadedKernel::operator=(LoadedKernel&& other) noexcept {
  if (this != &other) {
    release();
    dylib_ = std::exchange(other.dylib_, nullptr);
    entry_ = std::exchange(other.entry_, nullptr);
    functionName_ = std::move(other.functionName_);
  }
  return *this;
}

void LoadedKernel::release() {
  if (!dylib_)
    return;
  auto* library = static_cast<llvm::orc::JITDylib*>(std::exchange(dylib_, nullptr));
  entry_ = nullptr;
  // Removal frees the kernel's code; an error here would only leak it, so it is dropped.
  llvm::consumeError(processJit().getExecutionSession().removeJITDylib(*library));
}

} // namespace clustune::codegen
