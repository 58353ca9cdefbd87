#!/usr/bin/env python3
"""Independent FLOP / parameter counter for ONNX models.

Used to validate clustune's C++ partitioner, whose per-model FLOP totals must
agree with this script within 1%. Only shapes are used: external weight data
may be missing (the models/ files ship without it). Shapes come from
onnx.shape_inference with data propagation; every node of the ORIGINAL graph is
counted with these conventions (element counts from the inferred shapes):

  Conv           2*N*Cout*prod(out_spatial)*(Cin/groups)*prod(kernel) [+ out elems if bias]
  ConvTranspose  2*N*Cin*prod(in_spatial)*(Cout/groups)*prod(kernel)  [+ out elems if bias]
  Gemm           2*M*N*K [+ M*N if C];   MatMul  2*prod(batch)*M*N*K (numpy 1-D rules)
  BatchNormalization 2/out elem; Softmax/LogSoftmax 3/in elem; LayerNormalization 7/in elem
  element-wise ops   1/out elem, only when the output is a float tensor
  MaxPool/AveragePool out elems*prod(kernel_shape); GlobalAvg/MaxPool in elems
  ReduceMean/Sum/Max/Min/LogSum in elems; ReduceL1/L2/SumSquare 2/in elem;
  ReduceLogSumExp 3/in elem;  everything else (data movement, shape ops) 0

Params = sum of element counts of float initializers.
"""

import argparse
import json
import os
import sys
from collections import OrderedDict

import onnx
from onnx import TensorProto

FLOAT_TYPES = {
    TensorProto.FLOAT,
    TensorProto.FLOAT16,
    TensorProto.DOUBLE,
    TensorProto.BFLOAT16,
}

ELEMENTWISE = {
    "Relu", "Clip", "Sigmoid", "Tanh", "Erf", "HardSigmoid", "HardSwish",
    "LeakyRelu", "Elu", "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Exp", "Log",
    "Neg", "Abs", "Reciprocal", "Max", "Min", "Where", "Equal", "Less",
    "Greater", "Not", "And", "Or", "Floor", "Ceil", "Round", "Sign", "Gelu",
    "Selu", "Celu", "ThresholdedRelu", "Softsign", "Shrink", "LessOrEqual",
    "GreaterOrEqual", "Xor", "Sum", "Mean", "PRelu", "Sin", "Cos", "Tan", "Asin",
    "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Mod", "IsNaN", "IsInf",
}
REDUCE = {
    "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceLogSum", "ReduceProd",
    "ArgMax", "ArgMin", "CumSum", "TopK",
}
MAPPED_REDUCE = {"ReduceL1", "ReduceL2", "ReduceSumSquare"}
ZERO_COST = {
    "Reshape", "Flatten", "Transpose", "Concat", "Slice", "Split", "Gather",
    "Squeeze", "Unsqueeze", "Expand", "Pad", "Cast", "Identity", "Dropout",
    "Shape", "Constant", "ConstantOfShape", "Range", "GatherElements", "Trilu",
    "DepthToSpace", "SpaceToDepth", "OneHot", "Resize", "CastLike", "EyeLike",
    "GatherND", "ScatterElements", "Scatter", "ScatterND", "ReverseSequence",
}


class UnknownShape(Exception):
    pass


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def _shape_of_type(tp):
    """(elem_type, [dims] or None) from a TypeProto; symbolic/missing dims -> None entries."""
    if not tp.HasField("tensor_type"):
        return None, None
    tt = tp.tensor_type
    if not tt.HasField("shape"):
        return tt.elem_type, None
    dims = []
    for d in tt.shape.dim:
        dims.append(d.dim_value if d.HasField("dim_value") else None)
    return tt.elem_type, dims


def _attr(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def _override_dims(model, dims):
    """Replace dim_params of graph inputs by concrete values ({name: value})."""
    if not dims:
        return
    for vi in model.graph.input:
        for d in vi.type.tensor_type.shape.dim:
            if d.HasField("dim_param") and d.dim_param in dims:
                d.dim_value = dims[d.dim_param]


def load_model(path, dims=None):
    model = onnx.load(path, load_external_data=False)
    _override_dims(model, dims)
    try:
        inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
    except Exception as exc:  # fall back to whatever value_info the file carries
        print(f"warning: {path}: shape inference failed: {exc}", file=sys.stderr)
        inferred = model
    return inferred


class Counter:
    def __init__(self, model, name="model"):
        self.model = model
        self.name = name
        g = model.graph
        self.types = {}
        for vi in list(g.input) + list(g.value_info) + list(g.output):
            et, dims = _shape_of_type(vi.type)
            if et is not None:
                self.types[vi.name] = (et, dims)
        for init in g.initializer:
            self.types[init.name] = (init.data_type, list(init.dims))
        self.warnings = []

    # -- helpers ---------------------------------------------------------
    def dims(self, name):
        et_dims = self.types.get(name)
        if et_dims is None or et_dims[1] is None or any(d is None for d in et_dims[1]):
            raise UnknownShape(name)
        return et_dims[1]

    def elems(self, name):
        return _prod(self.dims(name))

    def is_float(self, name):
        t = self.types.get(name)
        if t is None:
            raise UnknownShape(name)
        return t[0] in FLOAT_TYPES

    # -- per-op rules ----------------------------------------------------
    def node_flops(self, node):
        op = node.op_type
        if node.domain not in ("", "ai.onnx"):
            self.warnings.append(f"node {node.name!r}: custom domain op {node.domain}::{op} counted as 0")
            return 0
        if op == "Conv":
            out = self.dims(node.output[0])
            w = self.dims(node.input[1])
            n, cout, spatial = out[0], out[1], out[2:]
            f = 2 * n * cout * _prod(spatial) * w[1] * _prod(w[2:])
            if len(node.input) > 2 and node.input[2]:
                f += _prod(out)
            return f
        if op == "ConvTranspose":
            x = self.dims(node.input[0])
            w = self.dims(node.input[1])
            f = 2 * x[0] * x[1] * _prod(x[2:]) * w[1] * _prod(w[2:])
            if len(node.input) > 2 and node.input[2]:
                f += self.elems(node.output[0])
            return f
        if op == "Gemm":
            a = self.dims(node.input[0])
            b = self.dims(node.input[1])
            m, k = (a[1], a[0]) if _attr(node, "transA", 0) else (a[0], a[1])
            n = b[0] if _attr(node, "transB", 0) else b[1]
            f = 2 * m * n * k
            if len(node.input) > 2 and node.input[2]:
                f += m * n
            return f
        if op == "MatMul":
            a = list(self.dims(node.input[0]))
            b = list(self.dims(node.input[1]))
            if len(a) == 1:
                a = [1] + a
            if len(b) == 1:
                b = b + [1]
            m, k, n = a[-2], a[-1], b[-1]
            ba, bb = a[:-2], b[:-2]
            r = max(len(ba), len(bb))
            ba = [1] * (r - len(ba)) + ba
            bb = [1] * (r - len(bb)) + bb
            batch = _prod(max(x, y) for x, y in zip(ba, bb))
            return 2 * batch * m * n * k
        if op == "BatchNormalization":
            return 2 * self.elems(node.output[0])
        if op in ELEMENTWISE:
            if not self.is_float(node.output[0]):
                return 0
            return self.elems(node.output[0])
        if op in ("MaxPool", "AveragePool"):
            return self.elems(node.output[0]) * _prod(_attr(node, "kernel_shape", []))
        if op in ("GlobalAveragePool", "GlobalMaxPool"):
            return self.elems(node.input[0])
        if op in REDUCE:
            return self.elems(node.input[0])
        if op in MAPPED_REDUCE:
            return 2 * self.elems(node.input[0])
        if op in ("Softmax", "LogSoftmax", "ReduceLogSumExp"):
            return 3 * self.elems(node.input[0])
        if op in ("LayerNormalization", "InstanceNormalization"):
            return 7 * self.elems(node.input[0])
        if op == "Hardmax":
            return 2 * self.elems(node.input[0])
        if op == "LRN":
            return (2 * _attr(node, "size", 1) + 4) * self.elems(node.input[0])
        if op == "MeanVarianceNormalization":
            return 6 * self.elems(node.input[0])
        if op == "Einsum":
            return self.einsum_flops(node)
        if op not in ZERO_COST:
            self.warnings.append(f"op {op} has no FLOP rule; counted as 0")
        return 0

    def einsum_flops(self, node):
        """graph/Einsum.h's rule: prod(label extents) * (operands - 1), plus that product when
        a label is summed away."""
        equation = _attr(node, "equation", b"")
        if isinstance(equation, bytes):
            equation = equation.decode()
        equation = "".join(equation.split())
        lhs, _, rhs = equation.partition("->")
        subscripts = lhs.split(",")
        shapes = [self.dims(name) for name in node.input]
        ellipsis = max((len(s) - len(sub.replace("...", "")) for sub, s in zip(subscripts, shapes)
                        if "..." in sub), default=0)
        extents, uses = {}, {}
        for sub, shape in zip(subscripts, shapes):
            letters = sub.replace("...", "")
            covered = len(shape) - len(letters)
            labels = []
            for part_index, part in enumerate(sub.split("...")):
                if part_index == 1:
                    labels += [f"...{ellipsis - covered + e}" for e in range(covered)]
                labels += list(part)
            for letter in letters:
                uses[letter] = uses.get(letter, 0) + 1
            for label, extent in zip(labels, shape):
                extents[label] = max(extents.get(label, 1), extent)
        if "->" in equation:
            out = set(rhs.replace("...", ""))
            if "..." in rhs:
                out |= {label for label in extents if label.startswith("...")}
        else:
            out = {l for l, n in uses.items() if n == 1} | {
                label for label in extents if label.startswith("...")}
        terms = _prod(extents.values())
        reduced = any(label not in out for label in extents)
        return terms * (len(shapes) - 1) + (terms if reduced else 0)

    def run(self):
        total = 0
        by_op = OrderedDict()
        for node in self.model.graph.node:
            try:
                f = self.node_flops(node)
            except UnknownShape as exc:
                self.warnings.append(
                    f"node {node.name or node.op_type!r} ({node.op_type}): unknown shape for "
                    f"{exc.args[0]!r}; counted as 0")
                f = 0
            total += f
            cnt, fl = by_op.get(node.op_type, (0, 0))
            by_op[node.op_type] = (cnt + 1, fl + f)
        params = sum(_prod(t.dims) for t in self.model.graph.initializer
                     if t.data_type in FLOAT_TYPES)
        return {
            "model": self.name,
            "flops": total,
            "params": params,
            "nodes": len(self.model.graph.node),
            "by_op": by_op,
        }


def model_name(path):
    base = os.path.basename(path)
    return base[:-5] if base.endswith(".onnx") else base


def count_path(path, dims=None):
    """Returns {"model", "flops", "params", "nodes", "by_op", "warnings"} for an .onnx path."""
    c = Counter(load_model(path, dims), model_name(path))
    res = c.run()
    res["warnings"] = sorted(set(c.warnings))
    return res


def _fmt(x):
    return f"{x:.3e}" if x >= 1e5 else str(x)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="+", help=".onnx files (external data may be absent)")
    ap.add_argument("--json", action="store_true",
                    help='print one JSON object per line {"model","flops","params","nodes"}')
    ap.add_argument("--by-op", action="store_true", help="add a per-op-type breakdown")
    ap.add_argument("--dim", action="append", default=[], metavar="NAME=VALUE",
                    help="bind a symbolic input dimension (e.g. --dim batch=1); repeatable")
    args = ap.parse_args(argv)
    dims = {}
    for d in args.dim:
        k, _, v = d.partition("=")
        dims[k] = int(v)

    status = 0
    if not args.json:
        print(f"{'model':<22} {'nodes':>6} {'params':>12} {'FLOPs':>16}")
    for path in args.models:
        try:
            res = count_path(path, dims)
        except Exception as exc:
            print(f"error: {path}: {exc}", file=sys.stderr)
            status = 1
            continue
        for w in res["warnings"]:
            print(f"warning: {res['model']}: {w}", file=sys.stderr)
        if args.json:
            obj = {k: res[k] for k in ("model", "flops", "params", "nodes")}
            if args.by_op:
                obj["by_op"] = {op: {"nodes": n, "flops": f} for op, (n, f) in res["by_op"].items()}
            print(json.dumps(obj))
        else:
            print(f"{res['model']:<22} {res['nodes']:>6} {res['params']:>12} {res['flops']:>16}"
                  f"  ({_fmt(res['flops'])})")
            if args.by_op:
                for op, (n, f) in sorted(res["by_op"].items(), key=lambda kv: -kv[1][1]):
                    print(f"    {op:<22} {n:>6} nodes {f:>16}")
    return status


if __name__ == "__main__":
    sys.exit(main())
