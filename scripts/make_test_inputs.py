#!/usr/bin/env python3
"""Generate the small ONNX files used by clustune's lit tests (test/tools/Inputs/).

Every file is built by hand with onnx.helper (opset 17 unless noted) from seeded
random values, so re-running the script reproduces the files byte for byte:

  tiny_cnn.onnx          Conv-BN-Relu-Conv(bias)-Add-Relu-GAP-reshape chain-Identity-Dropout-Gemm, inline weights
  tiny_dynamic.onnx      tiny_cnn with input dim 0 = dim_param "batch"
  tiny_external.onnx     Conv+Relu, weight in external file "tiny_external.weights" (not written)
  escape_relative.onnx   as tiny_external, location "../outside.bin"
  escape_absolute.onnx   as tiny_external, location "/etc/passwd"
  unsupported_op.onnx    Relu ("relu0") -> Det ("determinant")
  opset22.onnx           a single Relu, opset 22 (newer than clustune knows)
  opset21/test_opset21_forms/
                         model.onnx at opset 21 with the operand forms of opsets 18-20 (ReduceMean's
                         axes input, Split's num_outputs with a smaller last piece, Pad's axes
                         input, Gelu) and Shape->Gather->Concat->Reshape arithmetic, with an
                         input and onnxruntime's output as a backend node test
  bert-tiny_opset21.onnx models/bert-tiny.onnx converted to opset 21 by onnx.version_converter
  empty.onnx             0 bytes
  random_bytes.onnx      4096 bytes from numpy default_rng(1)
  truncated.onnx         first 60% of tiny_cnn.onnx
  two_branch.onnx        two equal-shaped MatMul+Relu branches (different names), two outputs
  tiny_blocks_d1.onnx, tiny_blocks_d3.onnx
                         1 and 3 repeated residual blocks Conv(8->8, 3x3, bias)-Relu-Add at 12x12,
                         for clustune-bench's depth sweep
  tiny_mobile.onnx       MobileNet-like: Conv(3->16)-Clip, depthwise 3x3 Conv-Relu, MaxPool, a
                         stride-2 depthwise Conv scaled by its squeeze-and-excitation gate
                         (GAP-HardSigmoid-Mul), Conv(16->24, 1x1) times a constant 0.5, and
                         Conv(24->24, 1x1) added to it, concatenated with it, BatchNormalization,
                         a grouped Conv(48->48, 3x3, 3 groups), AveragePool (count_include_pad 0),
                         GAP: depthwise, grouped, pooling, broadcast, concatenation and
                         24-channel layers for the blocked layout's tests
  zero_size.onnx         a Relu whose input is float[1x0x4] (an empty tensor)
  kernel_too_large.onnx  Conv ("conv_wide") with a 3x11 kernel over an 8x8 input padded to 8x10
  window_too_large.onnx  MaxPool ("pool_big") with a 3x3 window dilated by 4 (9x9) over 8x8
"""

import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPSET = 17
PRODUCER = "clustune scripts/make_test_inputs.py"


def _model(graph, opset=OPSET, ir_version=10):
    # IR version 10 whatever the onnx package writes by default, so that its version does not
    # change the files.
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name=PRODUCER)
    m.ir_version = ir_version
    return m


def _init(name, arr):
    return numpy_helper.from_array(np.array(arr, copy=True, order="C"), name)


def _rand(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32) * np.float32(0.5)


def tiny_cnn(batch=1):
    """batch: an int, or a string used as dim_param."""
    rng = np.random.default_rng(0)
    inits = [
        _init("conv0.weight", _rand(rng, 4, 3, 3, 3)),
        _init("bn0.scale", (1.0 + 0.1 * rng.standard_normal(4)).astype(np.float32)),
        _init("bn0.bias", (0.1 * rng.standard_normal(4)).astype(np.float32)),
        _init("bn0.mean", (0.1 * rng.standard_normal(4)).astype(np.float32)),
        _init("bn0.var", (1.0 + 0.1 * rng.random(4)).astype(np.float32)),
        _init("conv1.weight", _rand(rng, 4, 4, 1, 1)),
        _init("conv1.bias", _rand(rng, 4)),
        _init("fc.weight", _rand(rng, 10, 4)),
        _init("fc.bias", _rand(rng, 10)),
        _init("gather_index", np.array(0, dtype=np.int64)),
        _init("unsqueeze_axes", np.array([0], dtype=np.int64)),
    ]
    nodes = [
        helper.make_node("Conv", ["image", "conv0.weight"], ["conv0_out"], name="conv0",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("BatchNormalization",
                         ["conv0_out", "bn0.scale", "bn0.bias", "bn0.mean", "bn0.var"],
                         ["bn0_out"], name="bn0", epsilon=1e-5),
        helper.make_node("Relu", ["bn0_out"], ["relu0_out"], name="relu0"),
        helper.make_node("Conv", ["relu0_out", "conv1.weight", "conv1.bias"], ["conv1_out"],
                         name="conv1", kernel_shape=[1, 1]),
        helper.make_node("Add", ["conv1_out", "relu0_out"], ["add0_out"], name="add0"),
        helper.make_node("Relu", ["add0_out"], ["relu1_out"], name="relu1"),
        helper.make_node("GlobalAveragePool", ["relu1_out"], ["gap_out"], name="gap"),
        # [batch, -1] computed from the runtime shape so a symbolic batch flows through.
        helper.make_node("Shape", ["gap_out"], ["gap_shape"], name="shape0"),
        helper.make_node("Gather", ["gap_shape", "gather_index"], ["batch_dim"],
                         name="gather0", axis=0),
        helper.make_node("Unsqueeze", ["batch_dim", "unsqueeze_axes"], ["batch_dim_1d"],
                         name="unsqueeze0"),
        helper.make_node("Constant", [], ["minus_one"], name="const_minus_one",
                         value=_init("minus_one_value", np.array([-1], dtype=np.int64))),
        helper.make_node("Concat", ["batch_dim_1d", "minus_one"], ["flat_shape"],
                         name="concat0", axis=0),
        helper.make_node("Reshape", ["gap_out", "flat_shape"], ["flat"], name="reshape0"),
        helper.make_node("Identity", ["flat"], ["flat_id"], name="identity0"),
        helper.make_node("Dropout", ["flat_id"], ["flat_drop"], name="dropout0"),
        helper.make_node("Gemm", ["flat_drop", "fc.weight", "fc.bias"], ["logits"], name="fc",
                         transB=1),
    ]
    graph = helper.make_graph(
        nodes, "tiny_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [batch, 3, 8, 8])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, 10])],
        initializer=inits)
    return _model(graph)


def conv_relu_external(location):
    w = TensorProto()
    w.name = "conv.weight"
    w.data_type = TensorProto.FLOAT
    w.dims.extend([4, 3, 3, 3])
    w.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", "0"), ("length", str(4 * 3 * 3 * 3 * 4))):
        e = w.external_data.add()
        e.key, e.value = k, v
    nodes = [
        helper.make_node("Conv", ["image", "conv.weight"], ["conv_out"], name="conv0",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv_out"], ["output"], name="relu0"),
    ]
    graph = helper.make_graph(
        nodes, "conv_relu_external",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, 8, 8])],
        initializer=[w])
    return _model(graph)


def unsupported_op():
    nodes = [
        helper.make_node("Relu", ["x"], ["relu_out"], name="relu0"),
        helper.make_node("Det", ["relu_out"], ["det"], name="determinant"),
    ]
    graph = helper.make_graph(
        nodes, "unsupported_op",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 4])],
        [helper.make_tensor_value_info("det", TensorProto.FLOAT, [])])
    return _model(graph)


def opset22():
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu0")], "opset22",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    return _model(graph, opset=22)


def opset21_forms():
    inits = [
        _init("mean_axes", np.array([2], dtype=np.int64)),
        _init("pad_amounts", np.array([0, 1], dtype=np.int64)),
        _init("pad_axes", np.array([-1], dtype=np.int64)),
        _init("batch_index", np.array([0], dtype=np.int64)),
        _init("rest", np.array([-1], dtype=np.int64)),
    ]
    nodes = [
        helper.make_node("ReduceMean", ["x", "mean_axes"], ["mean"], name="mean", keepdims=1),
        helper.make_node("Sub", ["x", "mean"], ["centered"], name="center"),
        helper.make_node("Split", ["centered"], ["part0", "part1", "part2"], name="split",
                         axis=2, num_outputs=3),
        helper.make_node("Pad", ["part2", "pad_amounts", "", "pad_axes"], ["padded"],
                         name="pad"),
        helper.make_node("Add", ["part0", "padded"], ["sum"], name="add"),
        helper.make_node("Mul", ["sum", "part1"], ["product"], name="mul"),
        helper.make_node("Gelu", ["product"], ["gelu"], name="gelu"),
        helper.make_node("Shape", ["gelu"], ["gelu_shape"], name="shape"),
        helper.make_node("Gather", ["gelu_shape", "batch_index"], ["batch"], name="gather"),
        helper.make_node("Concat", ["batch", "rest"], ["target"], name="concat", axis=0),
        helper.make_node("Reshape", ["gelu", "target"], ["y"], name="flatten"),
    ]
    graph = helper.make_graph(
        nodes, "opset21_forms",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    return _model(graph, opset=21)


def bert_tiny_opset21():
    from onnx import version_converter
    model = onnx.load(os.path.join(REPO, "models", "bert-tiny.onnx"), load_external_data=False)
    return version_converter.convert_version(model, 21)


def two_branch():
    rng = np.random.default_rng(2)
    inits = [_init("branch_a.weight", _rand(rng, 8, 8)),
             _init("branch_b.weight", _rand(rng, 8, 8))]
    nodes = [
        helper.make_node("MatMul", ["x", "branch_a.weight"], ["a_mm"], name="branch_a/matmul"),
        helper.make_node("Relu", ["a_mm"], ["a_out"], name="branch_a/relu"),
        helper.make_node("MatMul", ["x", "branch_b.weight"], ["b_mm"], name="branch_b/matmul"),
        helper.make_node("Relu", ["b_mm"], ["b_out"], name="branch_b/relu"),
    ]
    graph = helper.make_graph(
        nodes, "two_branch",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("a_out", TensorProto.FLOAT, [1, 8]),
         helper.make_tensor_value_info("b_out", TensorProto.FLOAT, [1, 8])],
        initializer=inits)
    return _model(graph)


def tiny_blocks(depth):
    rng = np.random.default_rng(10 + depth)
    inits, nodes, x = [], [], "x"
    for i in range(depth):
        inits += [_init(f"block{i}.weight", _rand(rng, 8, 8, 3, 3) * np.float32(0.2)),
                  _init(f"block{i}.bias", _rand(rng, 8))]
        nodes += [
            helper.make_node("Conv", [x, f"block{i}.weight", f"block{i}.bias"], [f"b{i}_conv"],
                             name=f"block{i}/conv", pads=[1, 1, 1, 1]),
            helper.make_node("Relu", [f"b{i}_conv"], [f"b{i}_relu"], name=f"block{i}/relu"),
            helper.make_node("Add", [f"b{i}_relu", x], [f"b{i}_out"], name=f"block{i}/add"),
        ]
        x = f"b{i}_out"
    graph = helper.make_graph(
        nodes, f"tiny_blocks_d{depth}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 12, 12])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 8, 12, 12])],
        initializer=inits)
    return _model(graph)


def tiny_mobile():
    rng = np.random.default_rng(20)
    inits = [
        _init("conv0.weight", _rand(rng, 16, 3, 3, 3)),
        _init("conv0.bias", _rand(rng, 16)),
        _init("clip.min", np.array(0.0, dtype=np.float32)),
        _init("clip.max", np.array(6.0, dtype=np.float32)),
        _init("dw1.weight", _rand(rng, 16, 1, 3, 3)),
        _init("dw1.bias", _rand(rng, 16)),
        _init("dw2.weight", _rand(rng, 16, 1, 3, 3)),
        _init("dw2.bias", _rand(rng, 16)),
        _init("pw1.weight", _rand(rng, 24, 16, 1, 1)),
        _init("pw2.weight", _rand(rng, 24, 24, 1, 1) * np.float32(0.3)),
        _init("half", np.array([0.5], dtype=np.float32)),
        _init("bn.scale", (1.0 + 0.1 * rng.standard_normal(48)).astype(np.float32)),
        _init("bn.bias", (0.1 * rng.standard_normal(48)).astype(np.float32)),
        _init("bn.mean", (0.1 * rng.standard_normal(48)).astype(np.float32)),
        _init("bn.var", (1.0 + 0.1 * rng.random(48)).astype(np.float32)),
        _init("grouped.weight", _rand(rng, 48, 16, 3, 3) * np.float32(0.3)),
    ]
    nodes = [
        helper.make_node("Conv", ["image", "conv0.weight", "conv0.bias"], ["conv0_out"],
                         name="conv0", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Clip", ["conv0_out", "clip.min", "clip.max"], ["clip0_out"],
                         name="clip0"),
        helper.make_node("Conv", ["clip0_out", "dw1.weight", "dw1.bias"], ["dw1_out"],
                         name="dw1", kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=16),
        helper.make_node("Relu", ["dw1_out"], ["relu1_out"], name="relu1"),
        helper.make_node("MaxPool", ["relu1_out"], ["pool1_out"], name="pool1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Conv", ["pool1_out", "dw2.weight", "dw2.bias"], ["dw2_out"],
                         name="dw2", kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2],
                         group=16),
        helper.make_node("GlobalAveragePool", ["dw2_out"], ["se_pool"], name="se/pool"),
        helper.make_node("HardSigmoid", ["se_pool"], ["se_gate"], name="se/gate"),
        helper.make_node("Mul", ["dw2_out", "se_gate"], ["se_out"], name="se/scale"),
        helper.make_node("Conv", ["se_out", "pw1.weight"], ["pw1_out"], name="pw1",
                         kernel_shape=[1, 1]),
        helper.make_node("Mul", ["pw1_out", "half"], ["pw1_half"], name="pw1/half"),
        helper.make_node("Conv", ["pw1_half", "pw2.weight"], ["pw2_out"], name="pw2",
                         kernel_shape=[1, 1]),
        helper.make_node("Add", ["pw1_half", "pw2_out"], ["add_out"], name="add"),
        helper.make_node("Concat", ["add_out", "pw1_half"], ["joined"], name="join", axis=1),
        helper.make_node("BatchNormalization",
                         ["joined", "bn.scale", "bn.bias", "bn.mean", "bn.var"], ["bn_out"],
                         name="bn", epsilon=1e-5),
        helper.make_node("Conv", ["bn_out", "grouped.weight"], ["grouped_out"], name="grouped",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=3),
        helper.make_node("AveragePool", ["grouped_out"], ["avg_out"], name="avg",
                         kernel_shape=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("GlobalAveragePool", ["avg_out"], ["pooled"], name="gap"),
    ]
    graph = helper.make_graph(
        nodes, "tiny_mobile",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 10, 10])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [1, 48, 1, 1])],
        initializer=inits)
    return _model(graph)


def tiny_video():
    """r3d_18 in miniature: 3-D convolutions with a (1, 2, 2)-strided stem, a residual block and a
    stride-2 block with a 1x1x1 shortcut, for the blocked layout over video."""
    rng = np.random.default_rng(21)
    inits = [
        _init("stem.weight", _rand(rng, 8, 3, 3, 7, 7) * np.float32(0.3)),
        _init("stem.bias", _rand(rng, 8)),
        _init("a.weight", _rand(rng, 8, 8, 3, 3, 3) * np.float32(0.3)),
        _init("a.bias", _rand(rng, 8)),
        _init("b.weight", _rand(rng, 8, 8, 3, 3, 3) * np.float32(0.3)),
        _init("down.weight", _rand(rng, 16, 8, 3, 3, 3) * np.float32(0.3)),
        _init("down.bias", _rand(rng, 16)),
        _init("short.weight", _rand(rng, 16, 8, 1, 1, 1)),
    ]
    conv = lambda name, x, w, k, s, p: helper.make_node(  # noqa: E731
        "Conv", [x] + w, [name + "_out"], name=name, kernel_shape=k, strides=s, pads=p)
    nodes = [
        conv("stem", "video", ["stem.weight", "stem.bias"], [3, 7, 7], [1, 2, 2],
             [1, 3, 3, 1, 3, 3]),
        helper.make_node("Relu", ["stem_out"], ["r0"], name="relu0"),
        conv("a", "r0", ["a.weight", "a.bias"], [3, 3, 3], [1, 1, 1], [1] * 6),
        helper.make_node("Relu", ["a_out"], ["r1"], name="relu1"),
        conv("b", "r1", ["b.weight"], [3, 3, 3], [1, 1, 1], [1] * 6),
        helper.make_node("Add", ["b_out", "r0"], ["sum1"], name="add1"),
        helper.make_node("Relu", ["sum1"], ["r2"], name="relu2"),
        conv("down", "r2", ["down.weight", "down.bias"], [3, 3, 3], [2, 2, 2], [1] * 6),
        conv("short", "r2", ["short.weight"], [1, 1, 1], [2, 2, 2], [0] * 6),
        helper.make_node("Add", ["down_out", "short_out"], ["sum2"], name="add2"),
        helper.make_node("Relu", ["sum2"], ["r3"], name="relu3"),
        helper.make_node("GlobalAveragePool", ["r3"], ["pooled"], name="gap"),
    ]
    graph = helper.make_graph(
        nodes, "tiny_video",
        [helper.make_tensor_value_info("video", TensorProto.FLOAT, [1, 3, 4, 10, 10])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [1, 16, 1, 1, 1])],
        initializer=inits)
    return _model(graph)


def zero_size():
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu0")], "zero_size",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 0, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 0, 4])])
    return _model(graph)


def kernel_too_large():
    rng = np.random.default_rng(4)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["image", "conv_wide.weight"], ["y"], name="conv_wide",
                          pads=[0, 1, 0, 1])],
        "kernel_too_large",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[_init("conv_wide.weight", _rand(rng, 4, 3, 3, 11))])
    return _model(graph)


def window_too_large():
    graph = helper.make_graph(
        [helper.make_node("MaxPool", ["image"], ["y"], name="pool_big", kernel_shape=[3, 3],
                          dilations=[4, 4])],
        "window_too_large",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return _model(graph)


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def _check(name, model):
    onnx.checker.check_model(model, full_check=True)
    print(f"  checker ok: {name}")


def _run_ort(name, path, feeds):
    import onnxruntime as ort
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    outs = sess.run(None, feeds)
    print(f"  onnxruntime ok: {name} -> {[o.shape for o in outs]}")
    return outs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out-dir", default=os.path.join(REPO, "test", "tools", "Inputs"),
                    help="output directory (default: test/tools/Inputs/ of the repository)")
    ap.add_argument("--no-verify", action="store_true",
                    help="skip onnx.checker / onnxruntime verification")
    args = ap.parse_args(argv)
    out = args.out_dir
    os.makedirs(out, exist_ok=True)
    verify = not args.no_verify
    p = lambda n: os.path.join(out, n)  # noqa: E731

    valid = {
        "tiny_cnn.onnx": tiny_cnn(1),
        "tiny_dynamic.onnx": tiny_cnn("batch"),
        "tiny_external.onnx": conv_relu_external("tiny_external.weights"),
        "escape_relative.onnx": conv_relu_external("../outside.bin"),
        "escape_absolute.onnx": conv_relu_external("/etc/passwd"),
        "unsupported_op.onnx": unsupported_op(),
        "opset22.onnx": opset22(),
        "two_branch.onnx": two_branch(),
        "tiny_blocks_d1.onnx": tiny_blocks(1),
        "tiny_blocks_d3.onnx": tiny_blocks(3),
        "tiny_mobile.onnx": tiny_mobile(),
        "tiny_video.onnx": tiny_video(),
    }
    # Well-formed protobufs that clustune (and onnxruntime) must refuse.
    refused = {
        "zero_size.onnx": zero_size(),
        "kernel_too_large.onnx": kernel_too_large(),
        "window_too_large.onnx": window_too_large(),
    }
    for name, model in refused.items():
        _write(p(name), model.SerializeToString())
    for name, model in valid.items():
        _write(p(name), model.SerializeToString())

    _write(p("bert-tiny_opset21.onnx"), bert_tiny_opset21().SerializeToString())
    forms = os.path.join(out, "opset21", "test_opset21_forms")
    os.makedirs(os.path.join(forms, "test_data_set_0"), exist_ok=True)
    forms_model = opset21_forms()
    _write(os.path.join(forms, "model.onnx"), forms_model.SerializeToString())
    forms_input = np.random.default_rng(4).standard_normal((2, 6, 8)).astype(np.float32)
    _write(os.path.join(forms, "test_data_set_0", "input_0.pb"),
           numpy_helper.from_array(forms_input, "x").SerializeToString())
    # The expected output is onnxruntime's: the test fails if clustune computes anything else.
    (forms_output,) = _run_ort("opset21_forms", os.path.join(forms, "model.onnx"),
                               {"x": forms_input})
    _write(os.path.join(forms, "test_data_set_0", "output_0.pb"),
           numpy_helper.from_array(forms_output, "y").SerializeToString())

    tiny_bytes = open(p("tiny_cnn.onnx"), "rb").read()
    _write(p("empty.onnx"), b"")
    _write(p("random_bytes.onnx"), np.random.default_rng(1).bytes(4096))
    _write(p("truncated.onnx"), tiny_bytes[: int(len(tiny_bytes) * 0.6)])

    if verify:
        # The external-data models reference files that do not exist (by design), so
        # the checker cannot load their weights; check their structure with the
        # weight replaced by inline zeros instead.
        for name, model in valid.items():
            if name in ("tiny_external.onnx", "escape_relative.onnx", "escape_absolute.onnx"):
                m = onnx.ModelProto()
                m.CopyFrom(model)
                m.graph.initializer[0].CopyFrom(
                    _init("conv.weight", np.zeros((4, 3, 3, 3), np.float32)))
                _check(name + " (weights inlined)", m)
            else:
                _check(name, model)
        x = np.random.default_rng(3).standard_normal((1, 3, 8, 8)).astype(np.float32)
        (logits,) = _run_ort("tiny_cnn.onnx", p("tiny_cnn.onnx"), {"image": x})
        x2 = np.concatenate([x, 2 * x, -x])
        (logits2,) = _run_ort("tiny_dynamic.onnx (batch 3)", p("tiny_dynamic.onnx"), {"image": x2})
        assert np.allclose(logits, logits2[:1], atol=1e-5), "tiny_dynamic != tiny_cnn"
        _run_ort("unsupported_op.onnx", p("unsupported_op.onnx"),
                 {"x": np.eye(4, dtype=np.float32)})
        _run_ort("two_branch.onnx", p("two_branch.onnx"), {"x": np.ones((1, 8), np.float32)})
        _run_ort("tiny_video.onnx", p("tiny_video.onnx"),
                 {"video": np.ones((1, 3, 4, 10, 10), np.float32)})
        for bad in ("empty.onnx", "random_bytes.onnx", "truncated.onnx"):
            try:
                onnx.checker.check_model(onnx.load(p(bad)))
                print(f"  note: {bad} unexpectedly loads and checks")
            except Exception as exc:  # expected
                print(f"  rejected as intended: {bad} ({type(exc).__name__})")

    for name in sorted(os.listdir(out)):
        if name.endswith(".onnx"):
            print(f"{name:<24} {os.path.getsize(p(name)):>6} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
