#!/usr/bin/env bash
# test/device/bench_versions.sh: the same benchmark on several PostgreSQL
# versions, one after the other on one machine, each with its own cluster
# and a fresh load, and their figures side by side.
#   VERSION_STAGES  "NAME:FOLDER ..." (default "15:.devver/15 18:.devver/18"):
#                   each FOLDER holds pg.tgz, staged by stage.sh against that
#                   version
#   PGSTROM_BENCH   the bench binary (default .devver/pgstrom-bench), one
#                   for all versions
#   BENCH_TABLES    the datasets (default w1_narrow), BENCH_FLAGS the load
#                   and run flags (default "-scale 0.5"), BENCH_RUN_FLAGS
#                   the run's (default "-runs 2"), as for bench_suite.sh
# Each version is unpacked into /opt/pgNAME, where the portable builds
# expect to be; its cluster is removed after its run (the disk holds one).
# Results to $OUT/NAME/ (bench_suite.sh's files and server.log) and the
# comparison, per query and mode, to $OUT/versions.txt.
# Needs: a GPU machine with 16 cores and about 64 GB of memory or more; the
# staged folders; python3; root to reserve huge pages.
# Takes about 3 minutes a version at -scale 0.5 (the load about 1.5).
# No -e: a failed step is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export BENCH_TABLES=${BENCH_TABLES:-w1_narrow}
export BENCH_FLAGS=${BENCH_FLAGS:--scale 0.5}
export BENCH_RUN_FLAGS=${BENCH_RUN_FLAGS:--runs 2}
PGSTROM_BENCH=$(realpath "${PGSTROM_BENCH:-.devver/pgstrom-bench}")
export PGSTROM_BENCH
. "$here/hugepages.sh"
reserve_huge_pages 16

names=()
for pair in ${VERSION_STAGES:-15:.devver/15 18:.devver/18}; do
	name=${pair%%:*} folder=${pair#*:}
	names+=("$name")
	echo "=== PostgreSQL $name ($folder)"
	(
		export PGSTROM_STAGE=$folder PGDATA=/data/pgstrom-$name PGSTROM_PG_DIR=/opt/pg$name
		export OUT=$OUT/$name R=$here/cluster.sh
		mkdir -p "$OUT"
		bash "$R" start || exit 1
		eval "$(bash "$R" env)"
		psql -X -q -c 'CREATE EXTENSION pg_strom'
		. "$here/env.sh"
		device_wait_service
		psql -X -Atc 'SELECT version()' -c 'SHOW shared_buffers' -c 'SHOW data_checksums'
		bash "$here/bench_suite.sh"
		bash "$R" stop
		rm -rf "$PGDATA"
	) || echo "PostgreSQL $name: failed: $?"
done

python3 - "$OUT" "${names[@]}" > "$OUT/versions.txt" <<'PY'
import json, os, sys
out, names = sys.argv[1], sys.argv[2:]
runs = {}
for n in names:
    d = os.path.join(out, n)
    for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if f.startswith("bench-") and f.endswith(".json"):
            runs.setdefault(n, []).append(json.load(open(os.path.join(d, f))))
if not runs:
    sys.exit("no results")
base = names[0]
print("median seconds per query and mode; ratio = version / PostgreSQL %s" % base)
def medians(n):
    m = {}
    for doc in runs.get(n, []):
        for r in doc["results"]:
            for mode in r["modes"]:
                m[(r["table"], r["query"], mode["mode"])] = mode.get("median_s")
    return m
table = {n: medians(n) for n in names}
keys = sorted(set().union(*[set(t) for t in table.values()]))
print("%-10s %-8s %-10s " % ("table", "query", "mode") + " ".join("%10s" % ("PG " + n) for n in names)
      + " " + " ".join("%8s" % (n + "/" + base) for n in names[1:]))
sums = {n: {} for n in names}
for k in keys:
    vals = [table[n].get(k) for n in names]
    for n, v in zip(names, vals):
        if v is not None:
            sums[n][k[2]] = sums[n].get(k[2], 0) + v
    cells = " ".join("%10s" % ("-" if v is None else "%.3f" % v) for v in vals)
    ratios = " ".join("%8s" % ("-" if v is None or not vals[0] else "%.2f" % (v / vals[0])) for v in vals[1:])
    print("%-10s %-8s %-10s %s %s" % (k[0], k[1], k[2], cells, ratios))
for mode in sorted(sums[base]):
    vals = [sums[n].get(mode) for n in names]
    print("sum %-21s " % mode + " ".join("%10s" % ("-" if v is None else "%.3f" % v) for v in vals)
          + " " + " ".join("%8s" % ("-" if v is None or not vals[0] else "%.2f" % (v / vals[0])) for v in vals[1:]))
PY
cat "$OUT/versions.txt"
