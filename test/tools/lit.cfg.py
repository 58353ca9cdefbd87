# lit configuration for the tool tests: each .test file is a shell script of RUN lines checked
# with FileCheck. %inputs are the small hand-made ONNX files, %models the shipped corpus, %data
# the shipped measured datasets and %scripts the project's scripts.
import ctypes
import os
import shutil
import subprocess
import sys
import lit.formats

config.name = "clustune-tools"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)

site_config = lit_config.params.get("clustune_site_config")
if site_config is None:
    lit_config.fatal("run through ctest, or pass --param clustune_site_config=<build>/test/tools/lit.site.cfg.py")
lit_config.load_config(config, site_config)
config.test_exec_root = lit_config.params.get(
    "clustune_exec_root", os.path.join(os.path.dirname(site_config), "output"))

config.environment["PATH"] = os.pathsep.join(
    [config.clustune_bin_dir, config.llvm_tools_dir, config.environment.get("PATH", "/usr/bin:/bin")])
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%models", os.path.join(config.clustune_source_dir, "models")))
config.substitutions.append(("%data", os.path.join(config.clustune_source_dir, "data")))
config.substitutions.append(("%scripts", os.path.join(config.clustune_source_dir, "scripts")))
config.substitutions.append(("%targets", os.path.join(config.clustune_source_dir, "configs", "targets")))

config.substitutions.append(("%python", sys.executable))

# Checks that need Python packages run where they are installed: ONNX Runtime is not a Debian
# package, so a fresh CI machine skips those tests.
for module in ("onnxruntime", "onnx", "numpy"):
    if subprocess.run([sys.executable, "-c", "import " + module], capture_output=True).returncode == 0:
        config.available_features.add(module)

# The full-disk tests mount a small tmpfs in a private user and mount namespace (unshare -rm),
# which needs neither root nor a change to the machine; where the kernel or a container forbids
# such namespaces they are skipped, and the file-size-limit tests (ulimit -f) still run.
if subprocess.run(["sh", "-c", "unshare -rm sh -c 'mount -t tmpfs -o size=64k tmpfs /tmp'"],
                  capture_output=True).returncode == 0:
    config.available_features.add("private-tmpfs")

# The CUDA toolkit's ptxas checks generated PTX where it is installed; tests of the message for
# a machine without the NVIDIA driver run only where there is none.
ptxas = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas"
                                  if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
try:
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass
