#!/usr/bin/env python3
"""Check that ONNX Runtime computes what clustune expects from one of its saved model files.

clustune writes its learned models (cost-model MLPs, later the graph autoencoder) as ONNX
files so that other tools can run them; this script is the independent check that they do.
Each line of CASES.jsonl is one case,

  {"inputs": {"<input name>": [[...], ...]}, "outputs": {"<output name>": [...nested...]}}

with the values clustune computed itself. The script runs MODEL.onnx in ONNX Runtime (CPU,
one thread) on every case's inputs and compares every listed output elementwise:
|actual - expected| <= tolerance * max(1, |expected|), with shapes equal. It prints one line,

  N cases, max abs difference X: ok

or, when some output differs, a line naming the number of failed cases and the first
difference, and exits 1. Unreadable files, malformed cases and unknown input or output names
exit 2 with an "error:" line. Inputs are converted to the element type the model declares.

  python3 scripts/check_onnx_model.py MODEL.onnx CASES.jsonl [--tolerance 1e-5]
"""
import argparse
import json
import math
import sys

import numpy as np
import onnxruntime as ort

ORT_TYPES = {
    "tensor(float)": np.float32,
    "tensor(double)": np.float64,
    "tensor(float16)": np.float16,
    "tensor(int64)": np.int64,
    "tensor(int32)": np.int32,
    "tensor(bool)": np.bool_,
}


def one_line(error):
    return " ".join(str(error).split())


class InputError(Exception):
    """A problem with the files or cases given, as opposed to a wrong result."""


def make_session(model_path):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    try:
        return ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime raises its own exception types
        raise InputError(f"{model_path}: ONNX Runtime cannot load the model: {one_line(error)}")


def read_cases(cases_path):
    try:
        with open(cases_path, encoding="utf-8") as stream:
            lines = stream.readlines()
    except OSError as error:
        raise InputError(f"{cases_path}: {error.strerror}")
    cases = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(f"{cases_path}:{number}: not JSON: {error.msg}")
        if (not isinstance(case, dict) or not isinstance(case.get("inputs"), dict)
                or not isinstance(case.get("outputs"), dict)):
            raise InputError(f"{cases_path}:{number}: a case needs \"inputs\" and \"outputs\" objects")
        cases.append((number, case))
    if not cases:
        raise InputError(f"{cases_path}: no cases")
    return cases


def feeds_for(session, case, where):
    declared = {value.name: value for value in session.get_inputs()}
    unknown = sorted(set(case["inputs"]) - set(declared))
    if unknown:
        raise InputError(f"{where}: the model has no input {unknown[0]!r} "
                         f"(inputs: {', '.join(sorted(declared))})")
    missing = sorted(set(declared) - set(case["inputs"]))
    if missing:
        raise InputError(f"{where}: no value for the model's input {missing[0]!r}")
    feeds = {}
    for name, value in case["inputs"].items():
        dtype = ORT_TYPES.get(declared[name].type)
        if dtype is None:
            raise InputError(f"{where}: input {name!r} has unsupported type {declared[name].type}")
        try:
            feeds[name] = np.asarray(value, dtype=dtype)
        except (TypeError, ValueError) as error:
            raise InputError(f"{where}: input {name!r} is not a rectangular array: {error}")
    return feeds


def compare(actual, expected, tolerance):
    """Returns (max abs difference, first failing index or None, allowed difference there)."""
    actual = np.asarray(actual, dtype=np.float64)
    both_nan = np.isnan(actual) & np.isnan(expected)
    same_infinity = np.isinf(expected) & (actual == expected)
    exact = both_nan | same_infinity
    with np.errstate(invalid="ignore"):
        difference = np.where(exact, 0.0, np.abs(actual - expected))
    difference = np.where(np.isnan(difference), math.inf, difference)
    allowed = tolerance * np.maximum(1.0, np.abs(np.where(exact, 0.0, expected)))
    failing = np.argwhere(difference > allowed)
    largest = float(difference.max()) if difference.size else 0.0
    if failing.size == 0:
        return largest, None, None
    index = tuple(int(i) for i in failing[0])
    return largest, index, float(allowed[index])


def check(model_path, cases_path, tolerance):
    session = make_session(model_path)
    cases = read_cases(cases_path)
    output_names = {value.name for value in session.get_outputs()}
    largest = 0.0
    failed_cases = 0
    first_failure = None
    for number, case in cases:
        where = f"{cases_path}:{number}"
        feeds = feeds_for(session, case, where)
        names = list(case["outputs"])
        unknown = [name for name in names if name not in output_names]
        if unknown:
            raise InputError(f"{where}: the model has no output {unknown[0]!r} "
                             f"(outputs: {', '.join(sorted(output_names))})")
        try:
            results = session.run(names, feeds)
        except Exception as error:  # onnxruntime raises its own exception types
            raise InputError(f"{where}: ONNX Runtime cannot run the case: {one_line(error)}")
        case_failed = False
        for name, actual in zip(names, results):
            try:
                expected = np.asarray(case["outputs"][name], dtype=np.float64)
            except (TypeError, ValueError) as error:
                raise InputError(f"{where}: output {name!r} is not a rectangular array: {error}")
            if np.shape(actual) != expected.shape:
                case_failed = True
                largest = math.inf
                if first_failure is None:
                    first_failure = (f"case {where}, output {name!r}: shape {list(np.shape(actual))}, "
                                     f"expected {list(expected.shape)}")
                continue
            difference, index, allowed = compare(actual, expected, tolerance)
            largest = max(largest, difference)
            if index is not None:
                case_failed = True
                if first_failure is None:
                    first_failure = (f"case {where}, output {name!r} at {list(index)}: "
                                     f"got {float(np.asarray(actual)[index])!r}, expected "
                                     f"{float(expected[index])!r} (allowed difference {allowed:.3g})")
        failed_cases += case_failed
    if failed_cases:
        print(f"{len(cases)} cases, {failed_cases} failed, max abs difference {largest:.3g}; "
              f"first: {first_failure}")
        return 1
    print(f"{len(cases)} cases, max abs difference {largest:.3g}: ok")
    return 0


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Exit status: 0 when every output matches, 1 when some output differs, "
        "2 on unreadable or malformed input.")
    parser.add_argument("model", metavar="MODEL.onnx", help="the model file to run")
    parser.add_argument("cases", metavar="CASES.jsonl",
                        help='one case a line: {"inputs": {name: array}, "outputs": {name: array}}')
    parser.add_argument("--tolerance", type=float, default=1e-5,
                        help="allowed |actual - expected| relative to max(1, |expected|) "
                        "(default: 1e-5)")
    args = parser.parse_args()
    if not args.tolerance >= 0:
        parser.error("--tolerance must be a non-negative number")
    try:
        return check(args.model, args.cases, args.tolerance)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
