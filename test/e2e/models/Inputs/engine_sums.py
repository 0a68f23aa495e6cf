"""Checks bounds.py's whole-trace row (argv[2], its last line) against the
nki-run trace it read (argv[1]), summed here independently: each compute
engine's busy microseconds, their sum, and the sum over four."""
import json
import sys

with open(sys.argv[1]) as f:
    events = json.load(f)["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in events
         if e.get("ph") == "M" and e.get("name") == "thread_name"}
busy = {"pe": 0.0, "act": 0.0, "dve": 0.0, "pool": 0.0}
for e in events:
    if e.get("ph") == "X" and names.get(e["tid"]) in busy:
        busy[names[e["tid"]]] += e["dur"]
total = sum(busy.values())
want = [busy[k] for k in ("pe", "act", "dve", "pool")] + [total, total / 4]
with open(sys.argv[2]) as f:
    cells = [c.strip() for c in f.read().strip().strip("|").split("|")]
got = [float(c) for c in cells[1:]]
if len(got) != len(want) or any(abs(g - w) > 0.051 for g, w in zip(got, want)):
    sys.exit(f"row {cells} against the trace's {[round(w, 2) for w in want]}")
print("engine time and even spread match the trace")
