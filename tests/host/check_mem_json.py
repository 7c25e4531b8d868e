#!/usr/bin/env python3
"""Check a `kpmc mem --json` report (run with -n large enough for every row):
it parses as JSON, has the views, and each view accounts for the run's
samples exactly: instructions and CPUs sum to the samples at an access,
objects to those with an address; loads + stores cover each row."""
import json
import sys


def main(path):
    with open(path) as f:
        rep = json.load(f)
    for key in ("program", "samples", "at_access", "with_address", "address_lost",
                "no_access", "kernel", "instructions", "objects", "cpus"):
        if key not in rep:
            return f"no '{key}'"
    at = rep["at_access"]
    if rep["samples"] != at + rep["no_access"] + rep["kernel"]:
        return f"samples {rep['samples']} != at_access + no_access + kernel"
    if at != rep["with_address"] + rep["address_lost"]:
        return f"at_access {at} != with_address + address_lost"
    for view, want in (("instructions", at), ("cpus", at), ("objects", rep["with_address"])):
        got = sum(r["samples"] for r in rep[view])
        if got != want:
            return f"{view} sum to {got}, expected {want}"
        for r in rep[view]:
            if r["loads"] + r["stores"] < r["samples"]:
                return f"{view}: a row's loads + stores < samples: {r}"
    for c in rep["cpus"]:
        for key in ("cpu", "core", "package", "numa"):
            if not isinstance(c.get(key), int):
                return f"cpu row without {key}: {c}"
    if at == 0:
        return "no sample at an access"
    print(f"{rep['samples']} samples, {len(rep['instructions'])} instructions, "
          f"{len(rep['objects'])} objects, {len(rep['cpus'])} CPUs")
    return None


if __name__ == "__main__":
    err = main(sys.argv[1])
    if err:
        print(err)
        sys.exit(1)
