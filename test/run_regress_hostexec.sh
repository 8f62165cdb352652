#!/usr/bin/env bash
# pg_regress suite with the TEST-ONLY host executor: the real GPU service and
# the real backend GPU-mode paths, the device work done on the CPU by the
# kernels' own host code (gosvc/hostexec).  It builds and installs
# pg_strom_gosvc_hostexec.so into pkglibdir for the run and removes it after
# (unless another test run shares it: test/lib.sh), so no installation is
# ever left able to run it; with PGSTROM_HOSTEXEC_INSTALLED=1 the caller,
# test/run_all.sh, has installed it for its whole run.  The cluster is started
# with PG_STROM_TEST_HOST_EXECUTOR=1, the service must reach 'ready', the
# same schedule and expected outputs as test/run_regress.sh are used, and
# EXPLAIN ANALYZE must show that rows really went through the service.
set -euo pipefail
cd "$(dirname "$0")/.."
. test/lib.sh
port=${PGSTROM_HOSTEXEC_PORT:-55435}
dir=$(mktemp -d /tmp/pg_strom_hostexec.XXXXXX)
out=$(mktemp -d /tmp/pg_strom_hostexec_out.XXXXXX)
chmod 755 "$out"
lib=$(hostexec_lib)
put=
cleanup() {
	cluster_stop "$dir"
	hostexec_unuse "$put"
	[ "${KEEP_TEST_CLUSTER:-}" ] || rm -rf "$dir" "$out"
}
trap cleanup EXIT

# PGSTROM_HOSTEXEC_SO names a prebuilt library instead of building it
if [ "${PGSTROM_HOSTEXEC_INSTALLED:-}" = 1 ]; then
	[ -f "$lib" ] || { echo "FAILED: PGSTROM_HOSTEXEC_INSTALLED=1, but $lib is not installed"; exit 1; }
	echo "--- using the TEST-ONLY host executor library installed for the run"
else
	so=${PGSTROM_HOSTEXEC_SO:-}
	if [ -n "$so" ]; then
		echo "--- using the TEST-ONLY host executor library $so"
	else
		echo "--- building the TEST-ONLY host executor library"
		so=$out/pg_strom_gosvc_hostexec.so
		CGO_ENABLED=1 go build -buildmode=c-shared -o "$so" ./gosvc/hostexec/cmd/pg_strom_gosvc_hostexec
		rm -f "$out/pg_strom_gosvc_hostexec.h"
	fi
	hostexec_use
	hostexec_put "$so"
	put=1
fi

export PG_STROM_TEST_HOST_EXECUTOR=1
cluster_start "$dir" "$port"
unset PG_STROM_TEST_HOST_EXECUTOR

fail() {
	echo "FAILED: $*"
	echo "--- server log tail"; tail -50 "$dir/server.log"
	exit 1
}

state=
for _ in $(seq 1 300); do
	state=$(cluster_psql "$dir" "$port" -Atc "SELECT state FROM pgstrom.gpu_service_status() LIMIT 1" 2>/dev/null ||
		cluster_psql "$dir" "$port" -Atc "CREATE EXTENSION IF NOT EXISTS pg_strom; SELECT state FROM pgstrom.gpu_service_status() LIMIT 1" 2>/dev/null || true)
	[ "$state" = ready ] && break
	case "$state" in no_gpu|failed) break ;; esac
	sleep 0.2
done
cluster_psql "$dir" "$port" -c "SELECT device, name, compute_capability, total_memory, multiprocessors, pci_bus_id, pcie_link FROM pgstrom.gpu_device_info()"
[ "$state" = ready ] || fail "the GPU service is '$state', not ready"
grep -q "GPU service runs the TEST-ONLY host executor: no GPU is used" "$dir/server.log" ||
	fail "the service did not log that it runs the host executor"

# The service is forked from the supervisor without exec: it maps
# PostgreSQL's shared memory (the postmaster's shared writable mappings,
# by device and inode), and only read-only (DESIGN.md section 1, fact 5).
# The host executor links no CUDA driver, so nothing else in it is shared.
svc=$(cluster_psql "$dir" "$port" -Atc "SELECT pid FROM pgstrom.gpu_service_status() LIMIT 1")
pm=$(head -1 "$dir/postmaster.pid")
grep -E '^[^ ]+ .w.s ' "/proc/$svc/maps" && fail "the service (pid $svc) maps shared memory writable"
for id in $(awk '$2 ~ /^.w.s$/ {print $4 "/" $5}' "/proc/$pm/maps"); do
	awk -v id="$id" '$4 "/" $5 == id && $2 == "r--s" {found=1} END {exit !found}' "/proc/$svc/maps" ||
		fail "the service (pid $svc) does not map PostgreSQL's shared memory $id read-only"
done
echo "ok: the service maps PostgreSQL's shared memory read-only"
cluster_psql "$dir" "$port" -c "DROP EXTENSION pg_strom" >/dev/null

echo "--- pg_regress (same schedule and expected outputs as test/run_regress.sh)"
rc=0
make -s installcheck ${PGSTROM_REGRESS:+REGRESS="$PGSTROM_REGRESS"} PG_CONFIG="$PG_CONFIG" PGHOST="$dir" PGPORT="$port" PGUSER="$PGSTROM_TEST_USER" \
	REGRESS_OPTS="--inputdir=test --outputdir=$out" || rc=$?
if [ $rc -ne 0 ]; then
	[ -f "$out/regression.diffs" ] && cat "$out/regression.diffs"
	echo "--- server log tail"; tail -50 "$dir/server.log"
	exit $rc
fi

echo "--- the rows went through the GPU service (EXPLAIN ANALYZE), with PostgreSQL's results"
# hx_check runs query with ANALYZE: the plan must have want_node, no CPU
# Path line, and every counter named in want must be > 0 on some line; the
# result must equal pg_strom off's (EXCEPT ALL both ways).  min_chunks is a
# pattern for the chunk count (hx_big spans several 32MB chunks, so the
# parallel workers run chunks of one plan concurrently on the shared table).
cluster_psql "$dir" "$port" -q <<'SQL' || fail "EXPLAIN ANALYZE assertions"
CREATE EXTENSION pg_strom;
SET search_path = public;
SET client_min_messages = warning;
CREATE TABLE hx (id int, g int, a int, f float8, t text);
INSERT INTO hx
SELECT i, i % 13, (i * 7919) % 100003, (i % 1000) / 1000.0,
       CASE WHEN i % 500 = 0 THEN repeat('long key ' || (i % 3), 400) ELSE 'k' || (i % 97) END
  FROM generate_series(1, 200000) i;
VACUUM ANALYZE hx;
ALTER TABLE hx SET (parallel_workers = 4);
CREATE TABLE hx_big (id int, a int, pad text) WITH (parallel_workers = 4);
INSERT INTO hx_big SELECT i, ((i::bigint * 7919) % 100003)::int, repeat('x', 200) FROM generate_series(1, 900000) i;
VACUUM ANALYZE hx_big;
CREATE FUNCTION hx_check(label text, query text, want_node text, want text[],
                         min_chunks text DEFAULT '[1-9]') RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	plan text := '';
	c text;
	diff bigint;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
		plan := plan || line || E'\n';
	END LOOP;
	IF plan !~ want_node THEN
		RAISE EXCEPTION '%: no % in the plan:%', label, want_node, E'\n' || plan;
	END IF;
	IF plan ~ 'CPU Path' THEN
		RAISE EXCEPTION '%: the CPU path ran:%', label, E'\n' || plan;
	END IF;
	-- every partition's node reports its work, whichever participant ran it
	IF label ~ 'over partitions' AND plan ~ 'Chunks: 0\M' THEN
		RAISE EXCEPTION '%: a partition''s node reports no chunks:%', label, E'\n' || plan;
	END IF;
	-- the partitions' nodes build the inner rows once: each inner plan runs
	-- in one partition's node, the other copies never
	FOREACH c IN ARRAY ARRAY['hx_dim', 'hx_tdim'] LOOP
		IF label ~ 'over partitions' AND
			(SELECT count(*) FILTER (WHERE l !~ 'never executed') <> 1 AND count(*) > 0
			   FROM regexp_split_to_table(plan, E'\n') l WHERE l ~ (' on ' || c || '\M')) THEN
			RAISE EXCEPTION '%: the inner plan over % did not run exactly once:%', label, c, E'\n' || plan;
		END IF;
	END LOOP;
	-- pages are read where they lie in shared buffers unless told otherwise
	IF current_setting('pg_strom.zero_copy')::bool AND label !~ 'pages copied|direct read' AND
		(plan ~ 'Page Copies' OR plan !~ 'Zero-Copy Pages: [1-9]') THEN
		RAISE EXCEPTION '%: pages were copied:%', label, E'\n' || plan;
	END IF;
	FOREACH c IN ARRAY want LOOP
		IF plan !~ (c || ': ' || CASE WHEN c = 'Chunks' THEN min_chunks ELSE '[1-9]' END) THEN
			RAISE EXCEPTION '%: no "%" > 0 (or too few chunks):%', label, c, E'\n' || plan;
		END IF;
	END LOOP;
	EXECUTE 'CREATE TEMP TABLE hx_gpu AS ' || query;
	PERFORM set_config('pg_strom.enabled', 'off', true);
	EXECUTE 'SELECT (SELECT count(*) FROM (SELECT * FROM hx_gpu EXCEPT ALL (' || query || ')) a) +'
		 || ' (SELECT count(*) FROM ((' || query || ') EXCEPT ALL SELECT * FROM hx_gpu) b)' INTO diff;
	PERFORM set_config('pg_strom.enabled', 'on', true);
	DROP TABLE hx_gpu;
	IF diff <> 0 THEN
		RAISE EXCEPTION '%: % rows differ from PostgreSQL''s', label, diff;
	END IF;
	RETURN 'ok: ' || label || ': ' ||
		string_agg(btrim(l), ' | ') FROM regexp_split_to_table(plan, E'\n') l WHERE l ~ 'Chunks:';
END
$$;
-- GPU paths chosen on their costs, as on a GPU machine (no regression mode)
SET pg_strom.gpu_setup_cost = 0;
SET pg_strom.gpu_tuple_cost = 0;
SET pg_strom.gpu_operator_cost = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
\pset tuples_only on
-- the zero-copy path first: the tables are all-visible, and direct read
-- would take their clean pages from the files (checked at the end)
SET pg_strom.direct_read = off;
SET max_parallel_workers_per_gather = 0;
SELECT hx_check('GpuScan', $q$SELECT id, a FROM hx WHERE a % 7 = 3 AND f > 0.25$q$,
                'GpuScan', '{Chunks,Rows Out}');
SELECT hx_check('GpuScan recheck (compressed text)', $q$SELECT id FROM hx WHERE t LIKE '%key 1%' OR a < 50$q$,
                'GpuScan', '{Chunks,Rows Out,Recheck Rows}');
SELECT hx_check('GpuPreAgg', $q$SELECT g, count(*), sum(a), round(avg(f)::numeric, 9), min(a), max(f) FROM hx WHERE a > 10 GROUP BY g$q$,
                'GpuPreAgg', '{Chunks,GPU Groups}');
SELECT hx_check('GpuPreAgg long text keys', $q$SELECT t, count(*) FROM hx GROUP BY t$q$,
                'GpuPreAgg', '{Chunks,GPU Groups,Recheck Rows,CPU Groups}');
-- DISTINCT aggregates beside others: two Aggs and the pass-through node
SELECT hx_check('GpuPreAgg DISTINCT beside count and avg', $q$SELECT g, count(DISTINCT a % 100) AS d, count(*) AS n, avg(a) FROM hx GROUP BY g$q$,
                'GpuPreAgg Result', '{Chunks,GPU Groups}');
-- a to_char key longer than a default text slot (56 bytes): its slot is
-- sized from the format, so no row goes to the CPU (100,003 groups: the
-- costs may prefer PostgreSQL's HashAggregate, so regression mode offers it)
SET TimeZone = 'UTC';
SET pg_strom.regression_test_mode = on;
SELECT hx_check('GpuPreAgg to_char key', $q$SELECT to_char(date '2000-01-01' + a, 'Day Month YYYY-MM-DD IYYY-IW-ID DDD J Q WW') AS k, count(*) FROM hx GROUP BY 1$q$,
                'GpuPreAgg', '{Chunks,GPU Groups}');
DO $$
DECLARE
	line text;
	plan text := '';
BEGIN
	FOR line IN EXECUTE $q$EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT to_char(date '2000-01-01' + a, 'Day Month YYYY-MM-DD IYYY-IW-ID DDD J Q WW') AS k, count(*) FROM hx GROUP BY 1$q$ LOOP
		plan := plan || line || E'\n';
	END LOOP;
	IF plan !~ 'Recheck Rows: 0\M' THEN
		RAISE EXCEPTION 'a to_char key longer than 56 bytes went to the CPU:%', E'\n' || plan;
	END IF;
END
$$;
RESET pg_strom.regression_test_mode;
RESET TimeZone;
-- many groups: the costs prefer PostgreSQL's HashAggregate; regression mode
-- only makes the planner offer the path, execution still uses the service
SET pg_strom.regression_test_mode = on;
SELECT hx_check('GpuPreAgg table growth', $q$SELECT id % 60000 AS k, count(*), sum(a) FROM hx GROUP BY 1$q$,
                'GpuPreAgg', '{Chunks,GPU Groups,Table Growths}');
-- 900,000 groups of 128 bytes: the groups come back in several messages,
-- read one at a time while they are emitted
SELECT hx_check('GpuPreAgg, groups in several messages', $q$SELECT id, count(*), sum(a), avg(a::float8) FROM hx_big GROUP BY id$q$,
                'GpuPreAgg', '{Chunks,GPU Groups,Table Growths}', '([4-9]|[1-9][0-9])');
-- parallel plans: the default device costs, shared among the workers, make
-- the Gather plans cheaper than the serial ones
RESET pg_strom.gpu_setup_cost;
RESET pg_strom.gpu_tuple_cost;
RESET pg_strom.gpu_operator_cost;
SET max_parallel_workers_per_gather = 4;
SET pg_strom.enable_gpupreagg = off;
SELECT hx_check('parallel GpuScan', $q$SELECT count(*), sum(a) FROM hx WHERE a % 7 = 3 AND f > 0.25$q$,
                'Parallel Custom Scan \(GpuScan\)', '{Chunks,Rows Out}');
RESET pg_strom.enable_gpupreagg;
SELECT hx_check('parallel GpuPreAgg', $q$SELECT g, count(*), sum(a), round(stddev(a), 6) FROM hx GROUP BY g$q$,
                'Parallel Custom Scan \(GpuPreAgg\)', '{Chunks,GPU Groups}');
SELECT hx_check('parallel GpuPreAgg table growth', $q$SELECT id % 60000 AS k, count(*), max(a) FROM hx GROUP BY 1$q$,
                'Parallel Custom Scan \(GpuPreAgg\)', '{Chunks,GPU Groups,Table Growths}');
SELECT hx_check('parallel GpuScan, several chunks', $q$SELECT id, a FROM hx_big WHERE a % 1000 = 17$q$,
                'Parallel Custom Scan \(GpuScan\)', '{Chunks,Rows Out}', '([4-9]|[1-9][0-9])');
SELECT hx_check('parallel GpuPreAgg, several chunks, concurrent growth', $q$SELECT id % 70000 AS k, count(*), sum(a) FROM hx_big GROUP BY 1$q$,
                'Parallel Custom Scan \(GpuPreAgg\)', '{Chunks,GPU Groups,Table Growths}', '([4-9]|[1-9][0-9])');
SELECT hx_check('parallel GpuPreAgg DISTINCT', $q$SELECT DISTINCT g, t FROM hx WHERE a > 100$q$,
                'GpuPreAgg', '{Chunks,GPU Groups}');
-- date_trunc keys, of a date in the session's zone (a fixed offset) and of
-- a timestamp
SET TimeZone = 'UTC';
CREATE TABLE hx_dt AS SELECT i AS id, timestamp '2024-01-01' + i * interval '17 minutes 3.25 seconds' AS ts,
       date '2023-06-01' + i % 500 AS d FROM generate_series(1, 100000) i;
VACUUM ANALYZE hx_dt;
SELECT hx_check('GpuPreAgg date_trunc keys', $q$SELECT date_trunc('month', d) AS m, date_trunc('week', ts) AS w, count(*), max(id) FROM hx_dt GROUP BY 1, 2$q$,
                'GpuPreAgg', '{Chunks,GPU Groups}');
RESET TimeZone;
-- a partitioned table (a partition with its columns in another order after
-- a dropped one): one GpuPreAgg per surviving partition under a Parallel
-- Append, and under a plain Append pruned to two
CREATE TABLE hx_part (id int, g int, a int) PARTITION BY RANGE (id);
CREATE TABLE hx_part_1 PARTITION OF hx_part FOR VALUES FROM (MINVALUE) TO (60000);
CREATE TABLE hx_part_2 (a int, junk int, g int, id int);
ALTER TABLE hx_part_2 DROP COLUMN junk;
ALTER TABLE hx_part ATTACH PARTITION hx_part_2 FOR VALUES FROM (60000) TO (130000);
CREATE TABLE hx_part_3 PARTITION OF hx_part DEFAULT;
INSERT INTO hx_part SELECT id, g, a FROM hx;
VACUUM ANALYZE hx_part;
SELECT hx_check('parallel GpuPreAgg over partitions', $q$SELECT g, count(*), sum(a), max(id) FROM hx_part GROUP BY g$q$,
                'Parallel Append(.|\n)*Parallel Custom Scan \(GpuPreAgg\) on hx_part_2', '{Chunks,GPU Groups}');
SET max_parallel_workers_per_gather = 0;
SELECT hx_check('GpuPreAgg over partitions, pruned', $q$SELECT g, count(*), sum(a) FROM hx_part WHERE id >= 70000 GROUP BY g$q$,
                'Append(.|\n)*GpuPreAgg\) on hx_part_2(.|\n)*GpuPreAgg\) on hx_part_3', '{Chunks,GPU Groups}');
SELECT hx_check('GpuPreAgg DISTINCT over partitions', $q$SELECT DISTINCT g, a % 10 FROM hx_part$q$,
                'Append(.|\n)*GpuPreAgg\) on hx_part_2', '{Chunks,GPU Groups}');
SET max_parallel_workers_per_gather = 4;
-- GpuJoin (regression mode offers the paths; the joins run on the service):
-- serial, RECHECK rows of compressed text keys, a fan-out that gives every
-- chunk more records than one reply holds (64K), 3 depths in parallel
-- (regression mode is still on from above)
CREATE TABLE hx_dim (id int, name text) WITH (parallel_workers = 0);
INSERT INTO hx_dim SELECT i, 'dim ' || i FROM generate_series(0, 100002, 3) i;
CREATE TABLE hx_tdim (t text, w int) WITH (parallel_workers = 0);
INSERT INTO hx_tdim SELECT 'k' || i, i FROM generate_series(0, 60) i;
CREATE TABLE hx_fan (k int, n int) WITH (parallel_workers = 0);
INSERT INTO hx_fan SELECT i % 100, i FROM generate_series(1, 100000) i;
ANALYZE hx_dim, hx_tdim, hx_fan;
SET max_parallel_workers_per_gather = 0;
SELECT hx_check('GpuJoin', $q$SELECT h.id, d.name FROM hx h JOIN hx_dim d ON h.a = d.id$q$,
                'GpuJoin', '{Chunks,Rows Out}');
SELECT hx_check('GpuJoin recheck (compressed text keys)', $q$SELECT h.id, d.w FROM hx h LEFT JOIN hx_tdim d ON h.t = d.t$q$,
                'GpuJoin', '{Chunks,Rows Out,Recheck Rows}');
SELECT hx_check('GpuJoin fan-out over several replies', $q$SELECT h.id, f.n FROM hx h JOIN hx_fan f ON h.g = f.k WHERE h.id < 20000 AND h.id % 50 = 0$q$,
                'GpuJoin', '{Chunks,Rows Out}');
SET max_parallel_workers_per_gather = 4;
SELECT hx_check('parallel GpuJoin, 3 depths', $q$SELECT h.id, d.name, t.w, f.n FROM hx h JOIN hx_dim d ON h.a = d.id LEFT JOIN hx_tdim t ON h.t = t.t JOIN hx_fan f ON h.id = f.n$q$,
                'Parallel Custom Scan \(GpuJoin\)', '{Chunks,Rows Out}');
-- GpuPreAgg fused over GpuJoin: the combinations folded on the device, the
-- RECHECK outer rows (compressed text keys) joined and aggregated here,
-- serial and parallel
SET max_parallel_workers_per_gather = 0;
SELECT hx_check('fused GpuPreAgg over 2 depths', $q$SELECT t.w, h.g, count(*), sum(h.a), max(d.id) FROM hx h JOIN hx_dim d ON h.a = d.id LEFT JOIN hx_tdim t ON h.t = t.t GROUP BY t.w, h.g$q$,
                'GpuPreAgg\) on hx\M(.|\n)*Depth 2: Left Join', '{Chunks,GPU Groups,Recheck Rows}');
SET max_parallel_workers_per_gather = 4;
SELECT hx_check('parallel fused GpuPreAgg', $q$SELECT d.id % 7 AS k, t.w, count(*), sum(h.a) FROM hx h JOIN hx_dim d ON h.a = d.id LEFT JOIN hx_tdim t ON h.t = t.t GROUP BY 1, 2$q$,
                'Parallel Custom Scan \(GpuPreAgg\) on hx\M(.|\n)*Depth 2: Left Join', '{Chunks,GPU Groups,Recheck Rows}');
-- fused over a GpuJoin whose outer side is partitioned: one fused node per
-- partition, serial and under a Parallel Append
SET max_parallel_workers_per_gather = 0;
SELECT hx_check('fused GpuPreAgg over partitions', $q$SELECT d.id % 7 AS k, count(*), sum(h.a) FROM hx_part h JOIN hx_dim d ON h.a = d.id GROUP BY 1$q$,
                'Append(.|\n)*GpuPreAgg\) on hx_part_2(.|\n)*Depth 1: Inner Join', '{Chunks,GPU Groups}');
SET max_parallel_workers_per_gather = 4;
SELECT hx_check('parallel fused GpuPreAgg over partitions', $q$SELECT d.id % 7 AS k, t.w, count(*), sum(h.a) FROM hx_part h JOIN hx_dim d ON h.a = d.id LEFT JOIN hx_tdim t ON h.g = t.w GROUP BY 1, 2$q$,
                'Parallel Append(.|\n)*GpuPreAgg\) on hx_part_2(.|\n)*Depth 2: Left Join', '{Chunks,GPU Groups}');
-- a GpuJoin without aggregation over the partitions: one per partition
SELECT hx_check('GpuJoin over partitions', $q$SELECT h.id, d.name FROM hx_part h JOIN hx_dim d ON h.a = d.id$q$,
                'Append(.|\n)*GpuJoin\) on hx_part_2', '{Chunks,Rows Out}');
SET max_parallel_workers_per_gather = 4;
SELECT hx_check('parallel GpuJoin over partitions', $q$SELECT h.id, d.name, t.w FROM hx_part h JOIN hx_dim d ON h.a = d.id LEFT JOIN hx_tdim t ON h.g = t.w$q$,
                'Parallel Append(.|\n)*GpuJoin\) on hx_part_2', '{Chunks,Rows Out}');
-- the copy path: pg_strom.zero_copy off, and a temporary table (local buffers)
SET pg_strom.zero_copy = off;
SELECT hx_check('parallel GpuScan, pages copied', $q$SELECT id, a FROM hx_big WHERE a % 1000 = 17$q$,
	'GpuScan', ARRAY['Chunks', 'Rows Out']);
RESET pg_strom.zero_copy;
CREATE TEMP TABLE hx_tmp AS SELECT * FROM hx;
ANALYZE hx_tmp;
SELECT hx_check('temporary table, pages copied', $q$SELECT id, a FROM hx_tmp WHERE a % 7 = 3 AND f > 0.25$q$,
	'GpuScan', ARRAY['Chunks', 'Rows Out']);
-- direct read: the all-visible pages that are not in shared buffers come
-- from the relation's files (hx_big is larger than shared_buffers; hx lies
-- whole in them and goes the zero-copy way)
RESET pg_strom.direct_read;
CHECKPOINT;
SELECT hx_check('parallel GpuScan, direct read', $q$SELECT id, a FROM hx_big WHERE a % 1000 = 17$q$,
	'GpuScan', ARRAY['Chunks', 'Rows Out', 'Direct Read Blocks']);
SELECT hx_check('parallel GpuPreAgg, direct read', $q$SELECT a % 13 AS g, count(*), sum(id), round(stddev(id), 6) FROM hx_big GROUP BY 1$q$,
	'GpuPreAgg', ARRAY['Chunks', 'GPU Groups', 'Direct Read Blocks']);
SQL

echo "--- default costs: the plan choices the H200 figures calibrated (README, Results)"
# The bench tables at 1/200 scale (the generator of bench/datasets.go):
# what the planner picks depends only on the costs and the statistics.
CGO_ENABLED=0 go build -o "$out/pgstrom-bench" ./bench
PGHOST=$dir PGPORT=$port PGUSER=$PGSTROM_TEST_USER PGDATABASE=postgres \
	"$out/pgstrom-bench" load -scale 0.005 -workers 2 -prewarm=false >/dev/null || fail "bench load"
cluster_psql "$dir" "$port" -q <<'SQL' || fail "plan choices at the default costs"
SET max_parallel_workers_per_gather = 16;
SET parallel_setup_cost = 0;
CREATE FUNCTION hx_gpu_node(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		IF line ~ '(GpuScan|GpuPreAgg)' THEN
			RETURN substring(line FROM '(GpuScan|GpuPreAgg)');
		END IF;
	END LOOP;
	RETURN 'none';
END
$$;
CREATE FUNCTION hx_expect_plan(label text, query text, want text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	got text := hx_gpu_node(query);
BEGIN
	IF got <> want THEN
		RAISE EXCEPTION '%: the plan uses %, want %', label, got, want;
	END IF;
	RAISE NOTICE 'ok: %: %', label, got;
END
$$;
SET client_min_messages = notice;
-- narrow rows (zero-copy figures, README Results): a count, a GROUP BY
-- and heavy arithmetic all go to the GPU, and the device aggregates
SELECT hx_expect_plan('count_50pct narrow', 'SELECT count(*) FROM w1_narrow WHERE x < 12500', 'GpuPreAgg');
SELECT hx_expect_plan('group_8 narrow', 'SELECT c, count(*), sum(x), avg(y) FROM w1_narrow WHERE e < 9000 GROUP BY c', 'GpuPreAgg');
SELECT hx_expect_plan('arith_pred narrow',
	'SELECT count(*), sum(a) FROM w1_narrow WHERE (x * 1.5 + y * y / 7.0 - (a % 1000)::float8 * 0.25) * ((b % 13) + 1)::float8 > abs(x - y) * 3.0 + (id % 1000)::float8 + 20000.0 AND (a * 3 + e) % 11 < 7',
	'GpuPreAgg');
-- wide rows: the same arithmetic goes to the GPU too
SELECT hx_expect_plan('arith_pred wide',
	'SELECT count(*), sum(a) FROM w1_wide WHERE (x * 1.5 + y * y / 7.0 - (a % 1000)::float8 * 0.25) * ((b % 13) + 1)::float8 > abs(x - y) * 3.0 + (id % 1000)::float8 + 20000.0 AND (a * 3 + e) % 11 < 7',
	'GpuPreAgg');
-- wide rows: PostgreSQL counted them at 37 GB/s, as fast as the GPU path
-- (35-40 GB/s with the DMA gather), but with 16 busy cores against the
-- GPU path's 2.3-2.9 core-us a page: a GPU page costs gpu_page_cost in
-- place of seq_page_cost (planner/gpu_paths.c), so the count goes there
SELECT hx_expect_plan('count_1pct wide', 'SELECT count(*) FROM w1_wide WHERE a BETWEEN 250000 AND 259999', 'GpuPreAgg');
-- a small table stays on the CPU (gpu_setup_cost)
CREATE TABLE hx_small AS SELECT i AS a FROM generate_series(1, 2000) i;
ANALYZE hx_small;
SELECT hx_expect_plan('count small', 'SELECT count(*) FROM hx_small WHERE a < 1000', 'none');
SQL
echo "--- chunks were received into lent memory, which is freed once idle"
# gpu_mempool_release_delay is 5 s and the status is refreshed every second
cluster_psql "$dir" "$port" -q <<'SQL' || fail "host_pinned in gpu_service_status"
SET max_parallel_workers_per_gather = 0;
SET pg_strom.regression_test_mode = on;
-- lent chunk memory serves the copy path only
SET pg_strom.zero_copy = off;
SELECT count(*) FROM (SELECT id, a FROM hx_big WHERE a % 1000 = 17) s \gset
SELECT pg_sleep(2);
DO $$ BEGIN
	IF (SELECT host_pinned FROM pgstrom.gpu_service_status() LIMIT 1) = 0 THEN
		RAISE EXCEPTION 'host_pinned is 0 right after a scan of 32MB chunks';
	END IF;
END $$;
SELECT pg_sleep(6);
DO $$ BEGIN
	IF (SELECT host_pinned FROM pgstrom.gpu_service_status() LIMIT 1) <> 0 THEN
		RAISE EXCEPTION 'host_pinned is % after the release delay', (SELECT host_pinned FROM pgstrom.gpu_service_status() LIMIT 1);
	END IF;
	RAISE NOTICE 'ok: lent chunk memory was kept, then freed after the release delay';
END $$;
SQL
echo "--- the service's WARNING lines (the TEST-ONLY labels are expected)"
grep -E "WARNING" "$dir/server.log" | head -20 || true
grep -qE "PANIC|server process .* terminated|GPU service (failed|exited)" "$dir/server.log" &&
	fail "the server log shows a crash or a service failure"
echo "--- a corrupted page is PostgreSQL's data-corruption error"
cluster_psql "$dir" "$port" -q -c "CREATE TABLE hx_bad AS SELECT i, repeat('y', 50) AS t FROM generate_series(1, 20000) i" \
	-c "VACUUM FREEZE hx_bad" -c "CHECKPOINT" || fail "hx_bad"
relfile="$dir/$(cluster_psql "$dir" "$port" -Atc "SELECT pg_relation_filepath('hx_bad')")"
# with data checksums (initdb's default from PostgreSQL 18) the page fails
# its checksum when it is read, before any line pointer is looked at
if [ "$(cluster_psql "$dir" "$port" -Atc "SHOW data_checksums")" = on ]; then
	corrupt='XX001: invalid page in block 3 of relation'
else
	corrupt='XX001: invalid line pointer 1 in block 3 of relation "hx_bad"'
fi
cluster_stop "$dir"
# block 3, line pointer 1: lp_off 8100, LP_NORMAL, lp_len 200 (bit fields 15/2/15)
lp=$(( 8100 | (1 << 15) | (200 << 17) ))
printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((lp & 255)) $((lp >> 8 & 255)) $((lp >> 16 & 255)) $((lp >> 24 & 255)))" |
	dd of="$relfile" bs=1 seek=$((3 * 8192 + 24)) conv=notrunc status=none || fail "corrupting hx_bad"
export PG_STROM_TEST_HOST_EXECUTOR=1
cluster_start "$dir" "$port"
unset PG_STROM_TEST_HOST_EXECUTOR
for zc in on off; do
	err=$(cluster_psql "$dir" "$port" -c "SET pg_strom.regression_test_mode = on" -c "SET pg_strom.zero_copy = $zc" \
		-c "\\set VERBOSITY verbose" -c "SELECT count(*) FROM hx_bad WHERE i > 0" 2>&1 || true)
	grep -qF "$corrupt" <<<"$err" ||
		fail "zero_copy $zc: no data-corruption error naming the block: $err"
	echo "ok: zero_copy $zc: $(grep -m1 XX001 <<<"$err")"
done
cluster_psql "$dir" "$port" -q -c "DROP TABLE hx_bad" || fail "drop hx_bad"

echo "--- zero-copy checks (test/device/zerocopy_checks.sh, 300,000 rows)"
HX_DIR=$dir HX_PORT=$port R=test/device/local_remote.sh ZC_ROWS=300000 \
	bash test/device/zerocopy_checks.sh || fail "zero-copy checks"
echo "--- device page cache checks (test/device/pagecache_checks.sh, a 64MB store)"
# the default (-1, automatic) gives the host executor no cache, and the
# backends know it
[ "$(cluster_psql "$dir" "$port" -Atc "SHOW pg_strom.gpu_page_cache_size")" = -1 ] || fail "the page cache size is not automatic by default"
[ "$(cluster_psql "$dir" "$port" -Atc "SELECT page_cache_bytes FROM pgstrom.gpu_device_info()")" = 0 ] ||
	fail "an automatic page cache on the host executor"
grep -q "no device page cache (automatic size: none for this executor)" "$dir/server.log" ||
	fail "the service did not say why it keeps no automatic page cache"
cluster_psql "$dir" "$port" -q -c "ALTER SYSTEM SET pg_strom.gpu_page_cache_size = '64MB'" || fail "set the page cache size"
cluster_stop "$dir"
export PG_STROM_TEST_HOST_EXECUTOR=1
cluster_start "$dir" "$port"
unset PG_STROM_TEST_HOST_EXECUTOR
for _ in $(seq 1 300); do
	[ "$(cluster_psql "$dir" "$port" -Atc "SELECT state FROM pgstrom.gpu_service_status() LIMIT 1" 2>/dev/null)" = ready ] && break
	sleep 0.2
done
grep -q "device page cache: 64 MB, 8192 pages" "$dir/server.log" || fail "the service did not open its page store"
[ "$(cluster_psql "$dir" "$port" -Atc "SELECT page_cache_bytes FROM pgstrom.gpu_device_info()")" = $((64 << 20)) ] ||
	fail "gpu_device_info() does not show the 64MB page cache"
HX_DIR=$dir HX_PORT=$port R=test/device/local_remote.sh PC_ROWS=200000 \
	bash test/device/pagecache_checks.sh || fail "page cache checks"
echo "host executor: all checks passed"
