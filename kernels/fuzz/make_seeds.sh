#!/usr/bin/env bash
# Regenerates the committed seed corpora of the kernel fuzzers from real
# data: a throwaway cluster (PG_CONFIG's PostgreSQL, with pg_strom
# installed) gets a small table of every device type, with NULLs, long and
# short varlenas; its first heap pages are cut out of the relation file
# (pg_relation_filepath) and the backend's own code generator builds
# GpuScan programs over it (pgstrom_codegen_message, the debugging entry
# point of pgext/codegen/codegen_debug.c).  kernels/fuzz/seedgen then adds
# GpuPreAgg programs over the same attributes and writes
#   kernels/fuzz/corpus/           harness 1 (fuzz_kernels) inputs
#   gosvc/hostexec/testdata/fuzz/FuzzKernelValidator/   harness 2 seeds
#
#   PG_CONFIG=/path/pg_config bash kernels/fuzz/make_seeds.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
port=${FUZZ_SEED_PORT:-55490}
dir=$(mktemp -d /tmp/fuzz-seeds.XXXXXX)
raw=$(mktemp -d /tmp/fuzz-seeds-raw.XXXXXX)
cleanup() { cluster_stop "$dir"; rm -rf "$dir" "$raw"; }
trap cleanup EXIT
chmod 755 "$raw"
cluster_start "$dir" "$port"
psql_q() { cluster_psql "$dir" "$port" -qAt "$@"; }

psql_q <<'SQL'
CREATE FUNCTION pgstrom_codegen_message(text, text[]) RETURNS bytea
	AS '$libdir/pg_strom', 'pgstrom_codegen_message' LANGUAGE C;
CREATE TABLE fz (a int2, b int4, c int8, d float4, e float8, f numeric,
	g text, h varchar(20), i char(8), j date, k timestamp, l timestamptz, m bool);
INSERT INTO fz
SELECT (n % 300)::int2, n, n::int8 * 1000003, n / 7.0, n * 1.5e10,
	CASE WHEN n % 5 = 0 THEN NULL ELSE (n * 12.345)::numeric END,
	CASE WHEN n % 7 = 0 THEN repeat('x', 200 + n) ELSE 'ab' || n END,
	CASE WHEN n % 3 = 0 THEN NULL ELSE 'v' || n END, 'c' || (n % 10),
	'2020-01-01'::date + n, '2021-03-04 05:06:07'::timestamp + n * interval '1 hour',
	'2021-03-04 05:06:07+00'::timestamptz - n * interval '1 day',
	CASE WHEN n % 4 = 0 THEN NULL ELSE n % 2 = 0 END
FROM generate_series(1, 120) n;
DELETE FROM fz WHERE b % 11 = 0;	-- dead line pointers
UPDATE fz SET b = -b WHERE b % 13 = 0;	-- a HOT chain
CHECKPOINT;
SQL
datadir=$(psql_q -c 'SHOW data_directory')
relfile=$datadir/$(psql_q -c "SELECT pg_relation_filepath('fz')")
as_owner cat "$relfile" > "$raw/rel"
npages=$(( $(stat -c %s "$raw/rel") / 8192 ))
for p in $(seq 0 $(( npages < 3 ? npages - 1 : 2 ))); do
	dd if="$raw/rel" of="$raw/page$p" bs=8192 skip=$p count=1 status=none
done

i=0
while IFS= read -r q; do
	[ -z "$q" ] && continue
	hex=$(psql_q -v "q=$q" <<'SQL' || true
SELECT encode(pgstrom_codegen_message(:'q', NULL), 'hex');
SQL
)
	if [ -n "$hex" ]; then
		echo "$hex" | xxd -r -p > "$raw/scan$i"
		i=$((i + 1))
	else
		echo "make_seeds: no program for: $q" >&2
	fi
done <<'QUERIES'
SELECT * FROM fz WHERE b > 10
SELECT * FROM fz WHERE a + 1::int2 < 100::int2 AND c * 2 > 5
SELECT * FROM fz WHERE d::float8 > 0.5 OR e < 3.0
SELECT * FROM fz WHERE f + 1.5 > 10
SELECT * FROM fz WHERE g LIKE 'ab1%' OR g IS NULL
SELECT * FROM fz WHERE h = 'v1' OR i = 'c3'
SELECT * FROM fz WHERE j + 3 > '2020-02-01'::date
SELECT * FROM fz WHERE extract(month from k) = 3 AND date_part('day', j) > 2
SELECT * FROM fz WHERE m IS NOT TRUE AND l IS NOT NULL
SELECT * FROM fz WHERE CASE WHEN b > 5 THEN c ELSE 0 END > 1 AND COALESCE(b, 0) % 3 = 1
SELECT * FROM fz WHERE abs(-b) / 2 > 3 AND NOT m
SELECT * FROM fz WHERE f::int4 > 4 AND e::int8 > 0 AND k >= j::timestamp
QUERIES
echo "make_seeds: $npages pages, $i GpuScan programs from the backend"
go run ./kernels/fuzz/seedgen -raw "$raw" -corpus kernels/fuzz/corpus \
	-gocorpus gosvc/hostexec/testdata/fuzz/FuzzKernelValidator
