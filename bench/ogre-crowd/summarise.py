#!/usr/bin/env python3
"""Medians (and min-max of mean_ms) of the repetitions in a RESULT file, as a Markdown table.
Usage: summarise.py results/raw.txt"""
import statistics
import sys
from collections import defaultdict

cols = ["mean_ms", "median_ms", "update_ms", "pre_ms", "cull_ms", "draw_ms", "finish_ms", "build_ms"]
runs = defaultdict(list)
info = {}
for line in open(sys.argv[1]):
    if not line.startswith("RESULT"):
        continue
    kv = dict(f.split("=", 1) for f in line.split()[1:])
    key = (int(kv["n"]), kv["mode"])
    runs[key].append(kv)
    info[key] = kv

order = ["hwvtf", "hwvtf-lut", "vtf", "naive"]
print("| N | mode | runs | mean ms/frame (min-max) | " + " | ".join(c.replace("_ms", "") for c in cols[1:]) +
      " | draws | tris | per_batch | states |")
print("|---:|---|---:|---:|" + "---:|" * (len(cols) - 1) + "---:|---:|---:|---:|")
for key in sorted(runs, key=lambda k: (k[0], order.index(k[1]) if k[1] in order else 9)):
    rs = runs[key]
    med = {c: statistics.median(float(r[c]) for r in rs) for c in cols}
    lo = min(float(r["mean_ms"]) for r in rs)
    hi = max(float(r["mean_ms"]) for r in rs)
    kv = info[key]
    print(f"| {key[0]} | {key[1]} | {len(rs)} | {med['mean_ms']:.1f} ({lo:.1f}-{hi:.1f}) | " +
          " | ".join(f"{med[c]:.2f}" if med[c] < 10 else f"{med[c]:.1f}" for c in cols[1:]) +
          f" | {kv['draws']} | {kv['tris']} | {kv['per_batch']} | {kv['states']} |")
