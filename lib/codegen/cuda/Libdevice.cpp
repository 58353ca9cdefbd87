// See Libdevice.h.
#include "codegen/cuda/Libdevice.h"

#include "support/Error.h"

#include <cstdlib>
#include <filesystem>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>
#include <vector>

namespace clustune::codegen::cuda {
namespace {

// libdevice's function for `callee`, or "" when NVPTX computes it itself.
std::string libdeviceName(const llvm::Function& callee) {
  const bool isDouble = callee.getReturnType()->getScalarType()->isDoubleTy();
  if (callee.isIntrinsic()) {
    switch (callee.getIntrinsicID()) {
    case llvm::Intrinsic::exp:
      return isDouble ? "__nv_exp" : "__nv_expf";
    case llvm::Intrinsic::log:
      return isDouble ? "__nv_log" : "__nv_logf";
    case llvm::Intrinsic::pow:
      return isDouble ? "__nv_pow" : "__nv_powf";
    default:
      return "";
    }
  }
  // The C library functions the emitter declares (ExprEmitter.cpp) keep their names there.
  return callee.isDeclaration() ? "__nv_" + callee.getName().str() : "";
}

// Rewrites the calls of `callee` to `replacement`'s scalar function, lane by lane for vectors.
void replaceCalls(llvm::Function& callee, llvm::FunctionCallee replacement) {
  std::vector<llvm::CallInst*> calls;
  for (llvm::User* user : callee.users())
    if (auto* call = llvm::dyn_cast<llvm::CallInst>(user))
      calls.push_back(call);
  for (llvm::CallInst* call : calls) {
    llvm::IRBuilder<> builder(call);
    auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(call->getType());
    llvm::Value* result = nullptr;
    if (!vector) {
      std::vector<llvm::Value*> arguments(call->arg_begin(), call->arg_end());
      result = builder.CreateCall(replacement, arguments);
    } else {
      result = llvm::PoisonValue::get(vector);
      for (unsigned lane = 0; lane < vector->getNumElements(); ++lane) {
        std::vector<llvm::Value*> arguments;
        for (llvm::Value* argument : call->args())
          arguments.push_back(builder.CreateExtractElement(argument, lane));
        result =
            builder.CreateInsertElement(result, builder.CreateCall(replacement, arguments), lane);
      }
    }
    call->replaceAllUsesWith(result);
    call->eraseFromParent();
  }
}

} // namespace

std::string libdevicePath() {
  std::vector<std::filesystem::path> candidates;
  if (const char* explicitPath = std::getenv("CLUSTUNE_LIBDEVICE"))
    candidates.emplace_back(explicitPath);
  const std::filesystem::path relative = "nvvm/libdevice/libdevice.10.bc";
  if (const char* cudaHome = std::getenv("CUDA_HOME"))
    candidates.push_back(std::filesystem::path(cudaHome) / relative);
  candidates.push_back(std::filesystem::path("/usr/local/cuda") / relative);
  std::string tried;
  for (const auto& candidate : candidates) {
    if (std::filesystem::is_regular_file(candidate))
      return candidate.string();
    tried += (tried.empty() ? "" : ", ") + candidate.string();
  }
  throw Error("the kernel calls math functions, which on a GPU come from CUDA's libdevice, and "
              "there is none (tried " +
              tried + "; set CLUSTUNE_LIBDEVICE to libdevice.10.bc)");
}

void linkMathFromLibdevice(llvm::Module& module) {
  std::vector<std::pair<llvm::Function*, std::string>> replaced;
  for (llvm::Function& function : module)
    if (std::string name = libdeviceName(function); !name.empty() && !function.use_empty())
      replaced.emplace_back(&function, std::move(name));
  if (replaced.empty())
    return;

  const std::string path = libdevicePath();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    throw Error("cannot read: " + buffer.getError().message(), {.file = path});
  auto parsed = llvm::parseBitcodeFile(**buffer, module.getContext());
  if (!parsed)
    throw Error("not LLVM bitcode: " + llvm::toString(parsed.takeError()), {.file = path});
  std::unique_ptr<llvm::Module> libdevice = std::move(*parsed);
  for (const auto& [function, name] : replaced)
    if (!libdevice->getFunction(name))
      throw Error("libdevice has no " + name + " for " + function->getName().str(), {.file = path});
  libdevice->setTargetTriple(module.getTargetTriple());
  libdevice->setDataLayout(module.getDataLayout());

  for (const auto& [function, name] : replaced) {
    llvm::Type* scalar = function->getReturnType()->getScalarType();
    std::vector<llvm::Type*> parameters(function->arg_size(), scalar);
    replaceCalls(*function, module.getOrInsertFunction(
                                name, llvm::FunctionType::get(scalar, parameters, false)));
  }
  for (const auto& [function, name] : replaced)
    if (function->use_empty() && !function->isIntrinsic())
      function->eraseFromParent();

  // libdevice asks __nvvm_reflect whether to flush denormals; NVVMReflect answers from this.
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", std::uint32_t{0});
  if (llvm::Linker::linkModules(module, std::move(libdevice), llvm::Linker::LinkOnlyNeeded))
    throw Error("linking libdevice failed", {.file = path});
  for (llvm::Function& function : module)
    if (!function.isDeclaration() && function.getName().starts_with("__nv_"))
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
}

} // namespace clustune::codegen::cuda
