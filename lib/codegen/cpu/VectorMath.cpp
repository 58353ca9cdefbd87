// See VectorMath.h.
#include "codegen/cpu/VectorMath.h"

#include <array>
#include <dlfcn.h>

namespace clustune::codegen {
namespace {

struct MathFunction {
  const char* name; // the C function of floats; the double one drops the trailing 'f'
  int arity;
};

// The functions the emitter routes through libmvec (those glibc 2.35+ provides at every width).
constexpr std::array<MathFunction, 16> kFunctions{{{"expf", 1},
                                                   {"logf", 1},
                                                   {"powf", 2},
                                                   {"sinf", 1},
                                                   {"cosf", 1},
                                                   {"tanf", 1},
                                                   {"asinf", 1},
                                                   {"acosf", 1},
                                                   {"atanf", 1},
                                                   {"sinhf", 1},
                                                   {"coshf", 1},
                                                   {"tanhf", 1},
                                                   {"asinhf", 1},
                                                   {"acoshf", 1},
                                                   {"atanhf", 1},
                                                   {"erff", 1}}};

void* libmvec() {
#if defined(__x86_64__) && defined(__GLIBC__)
  // Kept for the process's lifetime: loaded kernels call into it.
  static void* const handle = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
  return handle;
#else
  return nullptr;
#endif
}

char isaLetter(int registerBits) {
  switch (registerBits) {
  case 128:
    return 'b';
  case 256:
    return 'd';
  case 512:
    return 'e';
  default:
    return 0;
  }
}

std::string mangled(char isa, int lanes, int arity, const std::string& scalarName) {
  return std::string("_ZGV") + isa + "N" + std::to_string(lanes) + std::string(arity, 'v') + "_" +
         scalarName;
}

} // namespace

bool vectorMathAvailable() {
  return libmvec() != nullptr;
}

std::string vectorMathName(const std::string& scalarName, int registerBits, int lanes, int arity) {
  const char isa = isaLetter(registerBits);
  if (!isa)
    return "";
  for (const MathFunction& function : kFunctions) {
    const std::string floatName = function.name;
    const std::string doubleName = floatName.substr(0, floatName.size() - 1);
    if (function.arity != arity)
      continue;
    if (scalarName == floatName && lanes * 32 == registerBits)
      return mangled(isa, lanes, arity, floatName);
    if (scalarName == doubleName && lanes * 64 == registerBits)
      return mangled(isa, lanes, arity, doubleName);
  }
  return "";
}

std::vector<std::pair<std::string, void*>> vectorMathSymbols() {
  std::vector<std::pair<std::string, void*>> symbols;
  void* library = libmvec();
  if (!library)
    return symbols;
  for (const MathFunction& function : kFunctions) {
    const std::string floatName = function.name;
    const std::string doubleName = floatName.substr(0, floatName.size() - 1);
    for (int bits : {128, 256, 512})
      for (const auto& [name, elementBits] :
           {std::pair{floatName, 32}, std::pair{doubleName, 64}}) {
        const std::string symbol = vectorMathName(name, bits, bits / elementBits, function.arity);
        if (void* address = dlsym(library, symbol.c_str()))
          symbols.emplace_back(symbol, address);
      }
  }
  return symbols;
}

} // namespace clustune::codegen
