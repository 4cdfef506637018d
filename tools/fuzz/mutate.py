"""Mutation smoke test: random byte edits of the suite's ONNX models, fed to qlower.

Usage: python3 tools/fuzz/mutate.py [--qlower target/release/qlower] [--cases N] [--seed S]

Each mutant is compiled (`--emit torch`, `--emit fused`) and, when it compiles, run once with
random inputs (`qlower bench --iterations 1`). Every outcome must be a clean exit 0 or 1 within
20 seconds: exit 101 (a panic), a signal or a timeout is reported and the mutant kept in a
temporary directory. This is a cheap first line before coverage-guided fuzzing.
"""

import argparse
import glob
import os
import random
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def mutate(data, rng):
    d = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        choice = rng.random()
        if choice < 0.6 and d:
            d[rng.randrange(len(d))] = rng.randrange(256)
        elif choice < 0.8 and d:
            at = rng.randrange(len(d))
            del d[at : at + rng.randint(1, 16)]
        else:
            at = rng.randrange(len(d) + 1)
            d[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return bytes(d)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--qlower", default=os.path.join(REPO, "target", "release", "qlower"))
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    paths = glob.glob(os.path.join(REPO, "test", "**", "*.onnx"), recursive=True)
    seeds = [open(p, "rb").read() for p in paths if os.path.getsize(p) > 0]
    keep = tempfile.mkdtemp(prefix="qlower-mutants-")
    bad = []
    for i in range(args.cases):
        path = os.path.join(keep, f"m{i}.onnx")
        with open(path, "wb") as f:
            f.write(mutate(rng.choice(seeds), rng))
        commands = [
            [args.qlower, path, "--emit", "torch", "-o", "/dev/null"],
            [args.qlower, path, "--emit", "fused", "-o", "/dev/null"],
            [args.qlower, "bench", path, "--iterations", "1", "--warmup", "0", "--threads", "1"],
        ]
        failure = None
        for cmd in commands:
            try:
                r = subprocess.run(cmd, capture_output=True, timeout=20)
                if r.returncode not in (0, 1):
                    failure = (cmd[1:], r.returncode, r.stderr.decode(errors="replace")[-300:])
            except subprocess.TimeoutExpired:
                failure = (cmd[1:], "timeout", "")
            if failure:
                break
        if failure:
            bad.append((path, failure))
        else:
            os.remove(path)
    print(f"{args.cases - len(bad)} passed, {len(bad)} failed")
    for path, failure in bad[:20]:
        print(path, failure)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
