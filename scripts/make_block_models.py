#!/usr/bin/env python3
"""Build models of 1..N repeated blocks for clustune-bench's depth sweeps (ONNX, shapes only).

Each family repeats one block of a corpus architecture on a fixed input, so that a model of
depth d has d copies of the same operators at the same shapes:

  resnet_basic        ResNet-18's basic block, 64 channels at 56x56
  resnet_bottleneck   ResNet-50's bottleneck block, 256 -> 64 -> 256 channels at 56x56
  mobilenet_ir        MobileNetV2's inverted residual, 32 channels at 28x28, expansion 6
  transformer         a BERT encoder layer (post-norm, GELU), hidden 256, 4 heads,
                      feed-forward 1024, sequence 128

The models are exported as scripts/export_models.py exports the corpus (batch 1, static
shapes, opset 17, torch's random initialisation, weights above 1 KiB removed: clustune and
clustune-bench generate seeded weights) to OUT/<family>_d<depth>.onnx. They are built from
blocks of corpus networks and are not corpus models: write them outside models/.

  python3 scripts/make_block_models.py --out experiments/blocks [--depths 1,2,4,8]
                                       [--families resnet_basic,transformer]
"""
import argparse
import inspect
import math
import os
import sys
import tempfile

import onnx
import torch
import torch.nn as nn

OPSET = 17


class BasicBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(y)) + x)


class Bottleneck(nn.Module):
    def __init__(self, channels, width):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, channels, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)))
        return self.relu(self.bn3(self.conv3(y)) + x)


class InvertedResidual(nn.Module):
    def __init__(self, channels, expansion):
        super().__init__()
        hidden = channels * expansion
        self.block = nn.Sequential(
            nn.Conv2d(channels, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(True),
            nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden, bias=False),
            nn.BatchNorm2d(hidden), nn.ReLU6(True),
            nn.Conv2d(hidden, channels, 1, bias=False), nn.BatchNorm2d(channels))

    def forward(self, x):
        return x + self.block(x)


class EncoderLayer(nn.Module):
    """A BERT encoder layer (post-norm, GELU) written out with static shapes, as the corpus
    BERT models are exported; nn.TransformerEncoderLayer exports slices of dynamic extent."""

    def __init__(self, hidden=256, heads=4, feed_forward=1024, sequence=128):
        super().__init__()
        self.heads, self.head_size, self.sequence = heads, hidden // heads, sequence
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.output = nn.Linear(hidden, hidden)
        self.norm1 = nn.LayerNorm(hidden)
        self.up = nn.Linear(hidden, feed_forward)
        self.down = nn.Linear(feed_forward, hidden)
        self.norm2 = nn.LayerNorm(hidden)

    def split(self, x):
        return x.view(1, self.sequence, self.heads, self.head_size).transpose(1, 2)

    def forward(self, x):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_size)
        context = torch.matmul(torch.softmax(scores, dim=-1), v)
        context = context.transpose(1, 2).reshape(1, self.sequence, self.heads * self.head_size)
        x = self.norm1(x + self.output(context))
        return self.norm2(x + self.down(nn.functional.gelu(self.up(x))))


# family -> (block factory, input shape)
FAMILIES = {
    "resnet_basic": (lambda: BasicBlock(64), (1, 64, 56, 56)),
    "resnet_bottleneck": (lambda: Bottleneck(256, 64), (1, 256, 56, 56)),
    "mobilenet_ir": (lambda: InvertedResidual(32, 6), (1, 32, 28, 28)),
    "transformer": (EncoderLayer, (1, 128, 256)),
}


def export(family, depth, out_dir):
    torch.manual_seed(depth)
    make_block, shape = FAMILIES[family]
    model = nn.Sequential(*[make_block() for _ in range(depth)]).eval()
    name = f"{family}_d{depth}"
    path = os.path.join(out_dir, f"{name}.onnx")
    data_name = f"{name}.onnx.data"
    kwargs = dict(input_names=["input"], output_names=["output"], opset_version=OPSET,
                  do_constant_folding=True)
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = os.path.join(tmp, f"{name}.onnx")
        with torch.no_grad():
            torch.onnx.export(model, (torch.randn(*shape),), tmp_path, **kwargs)
        exported = onnx.load(tmp_path)
    exported = onnx.shape_inference.infer_shapes(exported, data_prop=True)
    onnx.checker.check_model(exported)
    exported.producer_name = "clustune scripts/make_block_models.py"
    exported.doc_string = f"{name}: {depth} x {family}, random-init weights removed (shapes only)"
    onnx.save_model(exported, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=data_name, size_threshold=1024)
    data_path = os.path.join(out_dir, data_name)
    if os.path.exists(data_path):
        os.remove(data_path)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="output folder (not models/)")
    parser.add_argument("--depths", default="1,2,4,8", help="comma-separated depths")
    parser.add_argument("--families", default=",".join(FAMILIES),
                        help="comma-separated subset of: " + " ".join(FAMILIES))
    args = parser.parse_args(argv)
    try:
        depths = [int(d) for d in args.depths.split(",")]
    except ValueError:
        parser.error(f"--depths: '{args.depths}' is not a list of integers")
    if not depths or min(depths) < 1:
        parser.error("--depths: every depth must be at least 1")
    families = [f for f in args.families.split(",") if f]
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        parser.error(f"unknown families: {', '.join(unknown)}")
    out_dir = os.path.abspath(args.out)
    if os.path.basename(out_dir) == "models":
        parser.error("write block models outside models/: they are not corpus models")
    os.makedirs(out_dir, exist_ok=True)
    for family in families:
        for depth in depths:
            print(export(family, depth, out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
