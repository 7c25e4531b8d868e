#!/usr/bin/env python3
"""kpmc's machine-readable outputs, parsed with real parsers: the totals of
the CSV records, of the JSON records, of the JSON summary and of the CSV and
table totals (-A) must agree, and the loss must be reported.
Usage: check_outputs.py DIR (with records.csv, totals.csv, records.jsonl, table.txt)"""
import csv
import json
import sys
from collections import defaultdict

d = sys.argv[1]
fails = []

def check(cond, what):
    if not cond:
        fails.append(what)

# CSV records: per (tid, expid) sums of each counter, and run time.
csv_sum = defaultdict(int)
csv_run = defaultdict(int)
lost_csv = 0
with open(f"{d}/records.csv", newline="") as f:
    rows = list(csv.DictReader(f))
for r in rows:
    if r["event"] == "lost":
        lost_csv += int(r["lost"])
        continue
    for k in ("pmc0", "pmc1"):
        if r[k]:
            csv_sum[(r["tid"], r["expid"], k)] += int(r[k])
    csv_run[(r["tid"], r["expid"])] += int(r["run_ns"])
check(len(rows) == 43, f"{len(rows)} CSV records, expected 43")
check(lost_csv == 5, f"CSV lost {lost_csv}, expected 5")

# JSON lines: the same records, then a summary.
recs, summary = [], None
with open(f"{d}/records.jsonl") as f:
    for line in f:
        o = json.loads(line)
        if o["type"] == "record":
            recs.append(o)
        else:
            summary = o
check(len(recs) == 43, f"{len(recs)} JSON records, expected 43")
json_sum = defaultdict(int)
for o in recs:
    for k, v in o["counts"].items():
        json_sum[(str(o["tid"]), str(o["expid"]), k)] += v
check(json_sum == csv_sum, "JSON record sums differ from CSV record sums")
check(summary is not None and summary["lost"] == 5, "JSON summary lost != 5")

# Scaled totals: summary vs CSV -A vs the table -A.
scaled = {}
for th in summary["threads"]:
    for s in th["sets"]:
        for k, v in s["scaled"].items():
            scaled[(str(th["tid"]), str(s["expid"]), k)] = v
        run = csv_run[(str(th["tid"]), str(s["expid"]))]
        check(s["running_ns"] == run, f"tid {th['tid']} set {s['expid']}: running {s['running_ns']} != {run}")
with open(f"{d}/totals.csv", newline="") as f:
    for r in csv.DictReader(f):
        for k in ("pmc0", "pmc1"):
            key = (r["tid"], r["expid"], k)
            if key in scaled:
                check(int(r[k]) == scaled[key], f"CSV -A {key} {r[k]} != JSON {scaled[key]}")
table, starred = {}, set()
with open(f"{d}/table.txt") as f:
    for line in f:
        p = line.split()
        # rows: pid tid expid samples coverage pmc0 pmc1 ('*': did not count throughout)
        if len(p) == 7 and p[0] == "100":
            table[(p[1], p[2])] = [c.rstrip("*") for c in p[5:7]]
            starred |= {(p[1], p[2], k) for k, c in zip(("pmc0", "pmc1"), p[5:7]) if c.endswith("*")}
for (tid, expid, k), v in scaled.items():
    cell = table.get((tid, expid), ["?", "?"])[0 if k == "pmc0" else 1]
    check(cell == str(v), f"table -A {tid}/{expid}/{k} {cell} != JSON {v}")
# The raw sum of set 0's pmc1 for thread 100 by construction.
check(csv_sum[("100", "0", "pmc1")] == sum(777 * (i + 1) * 2 for i in range(0, 20, 2)) + 99,
      "CSV set-0 pmc1 of thread 100 differs from the generated stream")

# The one record whose pmc0 did not count throughout (thread 101, 5th set-0
# sample), in every form, and the thread's totals marked.
unc_csv = [(r["tid"], r["nsample"], r["uncounted"]) for r in rows if r["uncounted"]]
check(unc_csv == [("101", "5", "pmc0")], f"CSV uncounted cells {unc_csv}")
unc_json = [(o["tid"], o["nsample"], o["uncounted"]) for o in recs if o["uncounted"]]
check(unc_json == [(101, 5, ["pmc0"])], f"JSON uncounted {unc_json}")
unc_sum = {th["tid"]: th["uncounted"] for th in summary["threads"]}
check(unc_sum == {100: [], 101: ["pmc0"]}, f"JSON summary uncounted {unc_sum}")
with open(f"{d}/totals.csv", newline="") as f:
    unc_tot = {(r["tid"], r["expid"]): r["uncounted"] for r in csv.DictReader(f)}
check(unc_tot == {("100", "0"): "", ("100", "1"): "", ("101", "0"): "pmc0", ("101", "1"): "pmc0"},
      f"CSV -A uncounted {unc_tot}")
check(starred == {("101", "0", "pmc0")}, f"table -A cells marked *: {sorted(starred)}")

for f_ in fails:
    print("FAIL", f_)
print(f"outputs: {'FAIL' if fails else 'PASS'} ({len(fails)} problems)")
sys.exit(1 if fails else 0)
