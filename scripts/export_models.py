#!/usr/bin/env python3
"""Export clustune's benchmark models to ONNX (shapes only, no trained weights).

Builds 13 models with random initialisation (nothing is downloaded), exports
each to <out-dir>/<name>.onnx (batch 1, static shapes, opset 17), runs ONNX
shape inference so value_info carries every intermediate shape, then moves all
tensors larger than 1 KiB to an external-data file and DELETES that file: the
committed .onnx keeps the graph, shapes and small constants only. Prints file
size, parameter count and FLOPs (scripts/count_flops.py) for every model.

With --dynamic-batch, axis 0 of every input and output is the dynamic dimension
"batch" instead (default folder models/dynamic/): the exporter then keeps the
shape computations that a static export folds into constants, such as BERT's
attention Reshape targets, so that clustune's --batch and --input-shape can set
any batch or sequence length. The CNNs need no such variant: their static batch
can be replaced (clustune-bench does it), BERT's cannot.
"""

import argparse
import inspect
import os
import sys
import tempfile
import time

import onnx
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import count_flops  # noqa: E402

OPSET = 17
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------------------
# DCGAN generator, as in github.com/pytorch/examples/blob/main/dcgan/main.py
class DCGANGenerator(nn.Module):
    def __init__(self, nz=100, ngf=64, nc=3):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False),      # 4x4
            nn.BatchNorm2d(ngf * 8),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False),  # 8x8
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),  # 16x16
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),      # 32x32
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),           # 64x64
            nn.Tanh(),
        )
        self.apply(self._weights_init)

    @staticmethod
    def _weights_init(m):
        name = m.__class__.__name__
        if name.find("Conv") != -1:
            nn.init.normal_(m.weight, 0.0, 0.02)
        elif name.find("BatchNorm") != -1:
            nn.init.normal_(m.weight, 1.0, 0.02)
            nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.main(x)


class BertWrapper(nn.Module):
    """Returns a plain tuple (last_hidden_state, pooler_output)."""

    def __init__(self, bert):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask):
        # Explicit all-zero token types: the default path expands a buffer through a
        # Where/Equal shape computation that ONNX shape inference cannot propagate.
        token_type_ids = torch.zeros_like(input_ids)
        out = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                        token_type_ids=token_type_ids, return_dict=True)
        return out.last_hidden_state, out.pooler_output


# ---------------------------------------------------------------------------
def _tv(fn_name, shape, **kw):
    def build():
        import torchvision
        model = getattr(torchvision.models, fn_name)(weights=None, **kw)
        return model, (torch.randn(*shape),), ["input"], ["output"]
    return build


def _r3d():
    import torchvision
    model = torchvision.models.video.r3d_18(weights=None)
    return model, (torch.randn(1, 3, 16, 112, 112),), ["input"], ["output"]


def _dcgan():
    return DCGANGenerator(), (torch.randn(1, 100, 1, 1),), ["input"], ["output"]


def _bert(layers, hidden, heads, inter, seq=128):
    def build():
        from transformers import BertConfig, BertModel
        cfg = BertConfig(num_hidden_layers=layers, hidden_size=hidden,
                         num_attention_heads=heads, intermediate_size=inter,
                         attn_implementation="eager")
        bert = BertModel(cfg, add_pooling_layer=True)
        bert.config._attn_implementation = "eager"
        ids = torch.randint(0, cfg.vocab_size, (1, seq), dtype=torch.int64)
        mask = torch.ones(1, seq, dtype=torch.int64)
        return (BertWrapper(bert), (ids, mask), ["input_ids", "attention_mask"],
                ["last_hidden_state", "pooler_output"])
    return build


MODELS = {
    "resnet18": _tv("resnet18", (1, 3, 224, 224)),
    "resnet50": _tv("resnet50", (1, 3, 224, 224)),
    "mobilenet_v2": _tv("mobilenet_v2", (1, 3, 224, 224)),
    "mobilenet_v3_large": _tv("mobilenet_v3_large", (1, 3, 224, 224)),
    "resnext50_32x4d": _tv("resnext50_32x4d", (1, 3, 224, 224)),
    "wide_resnet50_2": _tv("wide_resnet50_2", (1, 3, 224, 224)),
    "inception_v3": _tv("inception_v3", (1, 3, 299, 299), init_weights=False, aux_logits=True),
    "densenet121": _tv("densenet121", (1, 3, 224, 224)),
    "r3d_18": _r3d,
    "dcgan": _dcgan,
    "bert-tiny": _bert(2, 128, 2, 512),
    "bert-base": _bert(12, 768, 12, 3072),
    "bert-large": _bert(24, 1024, 16, 4096),
}


def make_tensors_distinct(model, seed=0):
    """Add N(0, 1e-3) noise to every float parameter and buffer.

    torch.onnx deduplicates bit-identical initializers (e.g. the all-zero biases that
    random init and BN folding produce) into Identity nodes, which would distort the
    graph and the parameter count; real trained weights never coincide like that.
    """
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for t in list(model.parameters()) + list(model.buffers()):
            if t.is_floating_point():
                t.add_(torch.randn(t.shape, generator=g, dtype=t.dtype) * 1e-3)


def verify_with_ort(name, tmp_path, model, args, out_names):
    """Run the full-weight export in onnxruntime and compare with PyTorch."""
    import numpy as np
    import onnxruntime as ort
    sess = ort.InferenceSession(tmp_path, providers=["CPUExecutionProvider"])
    feeds = {i.name: a.numpy() for i, a in zip(sess.get_inputs(), args)}
    got = sess.run(out_names, feeds)
    with torch.no_grad():
        ref = model(*args)
    ref = ref if isinstance(ref, (tuple, list)) else (ref,)
    diff = max(float(np.max(np.abs(g - r.numpy()))) for g, r in zip(got, ref))
    print(f"  {name}: onnxruntime vs torch max |diff| = {diff:.2e}", flush=True)
    return diff


def export_one(name, out_dir, verify=False, dynamic_batch=False):
    torch.manual_seed(0)
    model, args, in_names, out_names = MODELS[name]()
    model.eval()
    make_tensors_distinct(model)
    path = os.path.join(out_dir, f"{name}.onnx")
    data_name = f"{name}.onnx.data"
    kwargs = dict(input_names=in_names, output_names=out_names,
                  opset_version=OPSET, do_constant_folding=True)
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False
    if dynamic_batch:
        kwargs["dynamic_axes"] = {tensor: {0: "batch"} for tensor in in_names + out_names}
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = os.path.join(tmp, f"{name}.onnx")
        with torch.no_grad():
            torch.onnx.export(model, args, tmp_path, **kwargs)
        if verify:
            verify_with_ort(name, tmp_path, model, args, out_names)
        del model
        m = onnx.load(tmp_path)  # loads external data too if torch wrote any
    m = onnx.shape_inference.infer_shapes(m, data_prop=True)
    onnx.checker.check_model(m)  # weights still present here
    m.producer_name = "clustune scripts/export_models.py"
    m.doc_string = (f"{name}: random-init weights, external data deleted (shapes only)"
                    + ("; dynamic batch" if dynamic_batch else ""))
    data_path = os.path.join(out_dir, data_name)
    if os.path.exists(data_path):
        os.remove(data_path)
    onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=data_name, size_threshold=1024)
    del m
    if os.path.exists(data_path):
        os.remove(data_path)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=",".join(MODELS),
                    help="comma-separated subset to export (default: all): " + " ".join(MODELS))
    ap.add_argument("--out-dir", default=None,
                    help="output directory (default: models/ of the repository, or "
                         "models/dynamic/ with --dynamic-batch)")
    ap.add_argument("--dynamic-batch", action="store_true",
                    help="export axis 0 of every input and output as the dynamic dimension 'batch'")
    ap.add_argument("--verify", action="store_true",
                    help="also run each full-weight export in onnxruntime and compare with torch")
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.models.split(",") if n.strip()]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        ap.error(f"unknown model(s): {', '.join(unknown)}")
    if args.out_dir is None:
        args.out_dir = os.path.join(REPO, "models", "dynamic" if args.dynamic_batch else "")
    os.makedirs(args.out_dir, exist_ok=True)

    t_all = time.time()
    print(f"{'model':<20} {'size':>10} {'params':>12} {'FLOPs':>16} {'time':>7}")
    for name in names:
        t0 = time.time()
        path = export_one(name, args.out_dir, args.verify, args.dynamic_batch)
        res = count_flops.count_path(path)
        for w in res["warnings"]:
            print(f"warning: {name}: {w}", file=sys.stderr)
        size = os.path.getsize(path)
        print(f"{name:<20} {size:>10} {res['params']:>12} {res['flops']:>16} "
              f"{time.time() - t0:>6.1f}s", flush=True)
    print(f"total export time: {time.time() - t_all:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
