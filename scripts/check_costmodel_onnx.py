#!/usr/bin/env python3
"""Check a clustune cost-model directory against ONNX Runtime.

`clustune-eval DIR RECORDS --tasks TASKS --dump-cases CASES.jsonl` writes, for a few programs,
the statement features clustune fed its model and the score it predicted, with the name of the
model (global, cluster-<i>) that scored it. This script runs each named DIR/<model>.onnx in ONNX
Runtime on the same features and compares the scores (scripts/check_onnx_model.py does the
comparison), so that the saved files are shown to compute what clustune computes.

  python3 scripts/check_costmodel_onnx.py DIR CASES.jsonl [--tolerance 1e-5]
"""
import argparse
import collections
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_onnx_model  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", metavar="DIR", help="cost-model directory (clustune-train -o)")
    parser.add_argument("cases", metavar="CASES.jsonl", help="clustune-eval --dump-cases output")
    parser.add_argument("--tolerance", type=float, default=1e-5,
                        help="allowed |actual - expected| relative to max(1, |expected|)")
    args = parser.parse_args()
    by_model = collections.defaultdict(list)
    try:
        with open(args.cases) as cases:
            for number, line in enumerate(cases, 1):
                case = json.loads(line)
                by_model[case.pop("model")].append(case)
    except (OSError, ValueError, KeyError) as error:
        print(f"error: {args.cases}: {error}", file=sys.stderr)
        return 2
    if not by_model:
        print(f"error: {args.cases} holds no case", file=sys.stderr)
        return 2
    status = 0
    for model, cases in sorted(by_model.items()):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as handle:
            for case in cases:
                handle.write(json.dumps(case) + "\n")
        print(f"{model}.onnx: ", end="", flush=True)
        try:
            status = max(status, check_onnx_model.check(
                os.path.join(args.directory, model + ".onnx"), handle.name, args.tolerance))
        except check_onnx_model.InputError as error:
            print(f"error: {error}", file=sys.stderr)
            status = 2
        finally:
            os.unlink(handle.name)
    return status


if __name__ == "__main__":
    sys.exit(main())
