#!/usr/bin/env python3
"""Convert an ONNX model of opset 17 to another default-domain opset, for import tests.

Upwards (18 to 21) this is onnx.version_converter. Downwards, version_converter has no adapters
for most operators, so the model is rewritten: every operator whose definition did not change
in meaning between the two opsets is relabelled (the revisions listed in TYPE_ONLY only widened
the element types or added an attribute the model does not set), and the two operators the
corpus uses that did not exist at opset 13 are replaced by what exporters emit there:
LayerNormalization by ReduceMean, Sub, Mul, Add, Sqrt, Div; HardSwish by x * HardSigmoid(x,
1/6, 1/2). Anything else is refused. The result passes onnx.checker at the target opset.

  python3 scripts/convert_opset.py models/resnet18.onnx 13 /tmp/resnet18-13.onnx
"""

import argparse
import sys

import onnx
from onnx import defs, helper, numpy_helper, version_converter
import numpy as np

# Operator revisions between opset 13 and 17 that changed only types or added attributes that
# default to the old behaviour.
TYPE_ONLY = {
    ("Relu", 14), ("Add", 14), ("Sub", 14), ("Mul", 14), ("Div", 14), ("Identity", 14),
    ("Identity", 16), ("BatchNormalization", 14), ("BatchNormalization", 15), ("Pow", 15),
    ("Shape", 15), ("Reshape", 14), ("Where", 16), ("LeakyRelu", 16), ("PRelu", 16),
    ("CastLike", 15), ("Less", 13), ("Greater", 13),
}
UNSET_ATTRIBUTES = {"Reshape": "allowzero", "BatchNormalization": "training_mode",
                    "Shape": "start"}


def expand_layer_norm(node, inits, counter):
    x, scale = node.input[0], node.input[1]
    bias = node.input[2] if len(node.input) > 2 else ""
    axis = next((a.i for a in node.attribute if a.name == "axis"), -1)
    eps = next((a.f for a in node.attribute if a.name == "epsilon"), 1e-5)
    if axis != -1:
        raise SystemExit(f"error: LayerNormalization with axis {axis} is not rewritten")
    p = f"{node.name or 'ln'}_{counter}"
    inits += [numpy_helper.from_array(np.array(2.0, np.float32), p + "_two"),
              numpy_helper.from_array(np.array(eps, np.float32), p + "_eps")]
    out = node.output[0]
    nodes = [
        helper.make_node("ReduceMean", [x], [p + "_mean"], axes=[-1], keepdims=1),
        helper.make_node("Sub", [x, p + "_mean"], [p + "_centered"]),
        helper.make_node("Pow", [p + "_centered", p + "_two"], [p + "_square"]),
        helper.make_node("ReduceMean", [p + "_square"], [p + "_var"], axes=[-1], keepdims=1),
        helper.make_node("Add", [p + "_var", p + "_eps"], [p + "_var_eps"]),
        helper.make_node("Sqrt", [p + "_var_eps"], [p + "_std"]),
        helper.make_node("Div", [p + "_centered", p + "_std"], [p + "_normed"]),
        helper.make_node("Mul", [p + "_normed", scale], [p + "_scaled" if bias else out]),
    ]
    if bias:
        nodes.append(helper.make_node("Add", [p + "_scaled", bias], [out]))
    return nodes


def expand_hard_swish(node, counter):
    p = f"{node.name or 'hs'}_{counter}"
    return [helper.make_node("HardSigmoid", [node.input[0]], [p + "_gate"], alpha=1.0 / 6,
                             beta=0.5),
            helper.make_node("Mul", [node.input[0], p + "_gate"], [node.output[0]])]


def downgrade(model, target):
    source = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    nodes, inits = [], list(model.graph.initializer)
    for i, node in enumerate(model.graph.node):
        if node.op_type == "LayerNormalization" and target < 17:
            nodes += expand_layer_norm(node, inits, i)
            continue
        if node.op_type == "HardSwish" and target < 14:
            nodes += expand_hard_swish(node, i)
            continue
        old = defs.get_schema(node.op_type, target).since_version
        new = defs.get_schema(node.op_type, source).since_version
        revisions = {s.since_version for s in defs.get_all_schemas_with_history()
                     if s.name == node.op_type and old < s.since_version <= new}
        for revision in revisions:
            if (node.op_type, revision) not in TYPE_ONLY:
                raise SystemExit(f"error: {node.op_type} changed meaning at opset {revision}")
        unset = UNSET_ATTRIBUTES.get(node.op_type)
        for attribute in list(node.attribute) if unset and revisions else []:
            if attribute.name != unset:
                continue
            if attribute.i != 0:  # 0 is the default, what the older opset always did
                raise SystemExit(f"error: {node.op_type} sets {unset} {attribute.i}, which "
                                 f"opset {target} cannot express")
            node.attribute.remove(attribute)
        nodes.append(node)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    del model.graph.initializer[:]
    model.graph.initializer.extend(inits)
    for opset in model.opset_import:
        if opset.domain in ("", "ai.onnx"):
            opset.version = target
    return model


def check_structure(model):
    """onnx.checker on a copy whose external (stripped, models/README.md) weights are inputs."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    external = [t for t in copy.graph.initializer
                if t.data_location == onnx.TensorProto.EXTERNAL]
    inputs = {i.name for i in copy.graph.input}
    for tensor in external:
        copy.graph.initializer.remove(tensor)
        if tensor.name not in inputs:
            copy.graph.input.append(
                helper.make_tensor_value_info(tensor.name, tensor.data_type, list(tensor.dims)))
    onnx.checker.check_model(copy)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("opset", type=int)
    ap.add_argument("output")
    args = ap.parse_args()
    model = onnx.load(args.model, load_external_data=False)
    source = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    if args.opset >= source:
        model = version_converter.convert_version(model, args.opset)
    else:
        model = downgrade(model, args.opset)
    check_structure(model)
    onnx.save(model, args.output)


if __name__ == "__main__":
    sys.exit(main())
