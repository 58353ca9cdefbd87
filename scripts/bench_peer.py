#!/usr/bin/env python3
"""One peer runtime of clustune-bench: times a model and writes its outputs.

clustune-bench writes FOLDER/model.onnx (the model with the weights clustune ran with) and
FOLDER/input_<i>.pb (the inputs, at the sweep's batch size), then runs

  python3 scripts/bench_peer.py --runtime ort|torch|tvm --folder FOLDER --threads T --repeat R

The graph inputs are given the inputs' shapes (the corpus models are exported at batch 1) and
the stored intermediate shapes are dropped, so the runtime infers them at this batch. The model
runs once as a warm-up, then R times; the outputs of the last run go to FOLDER/output_<i>.pb.
The report is one JSON line on stdout:
  {"status": "ok", "runtime": ..., "version": ..., "runs_ms": [...]}
  {"status": "unavailable", "reason": ...}   the runtime is not installed (exit 0)
  {"status": "failed", "reason": ...}        it could not run this model (exit 1)
--probe only reports whether the runtime is installed. Settings per runtime (docs/bench.md):
  ort    ONNX Runtime, CPU provider, intra-op threads T, one inter-op thread, sequential
         execution, every graph optimisation (the fair settings of REFERENCES.md);
  torch  PyTorch eager on the model converted by onnx2torch, torch.set_num_threads(T),
         inference mode;
  tvm    TVM from the ONNX model, untuned, target llvm for the host CPU, TVM_NUM_THREADS=T:
         Relay at opt_level 3 with TOPI's x86 schedules (TVM before 0.20), or Relax's default
         CPU pipeline with dlight's CPU rules (TVM 0.20 and later, which has no Relay).
"""
import argparse
import glob
import json
import os
import sys
import time


def report(status, **fields):
    print(json.dumps({"status": status, **fields}))
    sys.stdout.flush()


def load_inputs(folder):
    import onnx
    from onnx import numpy_helper
    paths = sorted(glob.glob(os.path.join(folder, "input_*.pb")),
                   key=lambda p: int(os.path.basename(p)[6:-3]))
    arrays = []
    for path in paths:
        tensor = onnx.TensorProto()
        with open(path, "rb") as f:
            tensor.ParseFromString(f.read())
        arrays.append(numpy_helper.to_array(tensor))
    return arrays


def model_at_batch(folder, inputs):
    """The model with its graph inputs at the inputs' shapes and no stored intermediate shapes."""
    import onnx
    model = onnx.load(os.path.join(folder, "model.onnx"))
    initializers = {t.name for t in model.graph.initializer}
    graph_inputs = [i for i in model.graph.input if i.name not in initializers]
    for value, array in zip(graph_inputs, inputs):
        dims = value.type.tensor_type.shape.dim
        for dim, size in zip(dims, array.shape):
            dim.Clear()
            dim.dim_value = int(size)
    del model.graph.value_info[:]
    for output in model.graph.output:
        for dim in output.type.tensor_type.shape.dim:
            dim.Clear()
    return model, [i.name for i in graph_inputs]


def write_outputs(folder, outputs):
    from onnx import numpy_helper
    import numpy as np
    for i, array in enumerate(outputs):
        tensor = numpy_helper.from_array(np.ascontiguousarray(array), name=f"output_{i}")
        with open(os.path.join(folder, f"output_{i}.pb"), "wb") as f:
            f.write(tensor.SerializeToString())


def time_runs(run, repeat):
    outputs = run()  # warm-up
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        outputs = run()
        runs.append((time.perf_counter() - start) * 1e3)
    return runs, outputs


def ort_runner(folder, threads, inputs):
    import onnxruntime as ort
    model, names = model_at_batch(folder, inputs)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    feed = dict(zip(names, inputs))
    return lambda: session.run(None, feed)


def torch_runner(folder, threads, inputs):
    import torch
    from onnx2torch import convert
    model, _ = model_at_batch(folder, inputs)
    # torch.onnx shares a weight between two names through an Identity, which onnx2torch
    # cannot convert: give the second name its own copy of the weight.
    initializers = {t.name: t for t in model.graph.initializer}
    for node in list(model.graph.node):
        if node.op_type == "Identity" and node.input[0] in initializers:
            copy = model.graph.initializer.add()
            copy.CopyFrom(initializers[node.input[0]])
            copy.name = node.output[0]
            model.graph.node.remove(node)
    torch.set_num_threads(threads)
    module = convert(model).eval()
    tensors = [torch.from_numpy(a.copy()) for a in inputs]

    def run():
        with torch.inference_mode():
            result = module(*tensors)
        if isinstance(result, (list, tuple)):
            return [r.numpy() for r in result]
        return [result.numpy()]
    return run


def tvm_runner(folder, threads, inputs):
    os.environ["TVM_NUM_THREADS"] = str(threads)
    import tvm
    try:
        from tvm import relay  # noqa: F401  TVM before 0.20
    except ImportError:
        return tvm_relax_runner(folder, inputs)
    from tvm.contrib import graph_executor
    model, names = model_at_batch(folder, inputs)
    shapes = {name: array.shape for name, array in zip(names, inputs)}
    module, params = relay.frontend.from_onnx(model, shape=shapes, freeze_params=True)
    with tvm.transform.PassContext(opt_level=3):
        library = relay.build(module, target=tvm.target.Target("llvm -mcpu=native"), params=params)
    device = tvm.cpu(0)
    executor = graph_executor.GraphModule(library["default"](device))
    for name, array in zip(names, inputs):
        executor.set_input(name, array)

    def run():
        executor.run()
        return [executor.get_output(i).numpy() for i in range(executor.get_num_outputs())]
    return run


def tvm_relax_runner(folder, inputs):
    """TVM 0.20 and later, which have Relax and no Relay: the ONNX importer, then the default
    CPU pipeline (operators legalized to TOPI's computes and fused) with dlight's CPU rules for
    reductions and matrix-vector products; the other kernels keep TOPI's unscheduled loops, as
    untuned Relax leaves them (MetaSchedule would tune them)."""
    import numpy
    import tvm
    from tvm import relax
    from tvm.relax.frontend.onnx import from_onnx
    model, names = model_at_batch(folder, inputs)
    shapes = {name: list(array.shape) for name, array in zip(names, inputs)}
    module = from_onnx(model, shape_dict=shapes, keep_params_in_input=False)
    target = tvm.target.Target({"kind": "llvm", "mcpu": tvm.target.codegen.llvm_get_system_cpu()})
    module = relax.backend.cpu_generic.get_default_pipeline(target)(module)
    try:
        from tvm.s_tir import dlight
        with target:
            module = dlight.ApplyDefaultSchedule(dlight.cpu.GEMV(), dlight.cpu.Reduction())(module)
    except ImportError:
        pass
    executable = tvm.compile(module, target=target, relax_pipeline=None)
    machine = relax.VirtualMachine(executable, tvm.cpu(0))
    arguments = [tvm.runtime.tensor(numpy.ascontiguousarray(a)) for a in inputs]

    def run():
        result = machine["main"](*arguments)
        if isinstance(result, (list, tuple)) or type(result).__name__ == "Array":
            return [r.numpy() for r in result]
        return [result.numpy()]
    return run


RUNTIMES = {
    "ort": (("onnxruntime",), ort_runner),
    "torch": (("torch", "onnx2torch"), torch_runner),
    "tvm": (("tvm",), tvm_runner),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtime", required=True, choices=sorted(RUNTIMES))
    parser.add_argument("--probe", action="store_true", help="only report whether it is installed")
    parser.add_argument("--folder", help="model.onnx and input_<i>.pb; outputs are written here")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    modules, make_runner = RUNTIMES[args.runtime]
    versions = {}
    for module in ("onnx", "numpy") + modules:
        try:
            imported = __import__(module)
            versions[module] = getattr(imported, "__version__", "?")
        except Exception as error:  # an ImportError, or a broken installation
            report("unavailable", reason=f"{args.runtime} needs the Python module '{module}' "
                                         f"({type(error).__name__}: {error})")
            return 0
    version = versions[modules[0]]
    if args.probe:
        report("ok", runtime=args.runtime, version=version)
        return 0
    if not args.folder or args.threads < 1 or args.repeat < 1:
        report("failed", reason="--folder, and positive --threads and --repeat, are required")
        return 1
    try:
        inputs = load_inputs(args.folder)
        runs, outputs = time_runs(make_runner(args.folder, args.threads, inputs), args.repeat)
        write_outputs(args.folder, outputs)
    except Exception as error:
        message = str(error).strip().splitlines()
        report("failed", reason=f"{args.runtime}: {type(error).__name__}: "
                                f"{message[0] if message else ''}")
        return 1
    report("ok", runtime=args.runtime, version=version, runs_ms=runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
