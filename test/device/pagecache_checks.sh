#!/usr/bin/env bash
# test/device/pagecache_checks.sh: the device page cache
# (pg_strom.gpu_page_cache_size, which the caller set before the cluster
# started) against PostgreSQL's own answers, on the GPU machine or, through
# local_remote.sh (R=test/device/local_remote.sh), on a local cluster under
# the host executor (test/run_regress_hostexec.sh does that):
#  - a scan fills the cache, the next one is served from it whole;
#  - an UPDATE clears visibility-map bits: those pages go the zero-copy
#    way, and the answers stay PostgreSQL's;
#  - VACUUM sets the bits again under a new map LSN: the pages are read
#    from the files again, not taken from the cache;
#  - a REPEATABLE READ snapshot keeps its answers while another session
#    updates, deletes and vacuums;
#  - rows formed from cached pages, GpuJoin over them, pg_strom.use_page_cache
#    off and unlogged tables (no cache);
#  - pgstrom.gpu_page_cache_relations() follows it: the first scan's misses
#    and cached pages, the second scan's hits, the refills after VACUUM,
#    and no row for the unlogged table;
#  - pages that lie dirty in shared buffers (no checkpoint since the load)
#    are cached from the images gathered zero-copy, and served after HOT
#    updates, inserts, deletes and VACUUM only where still current.
# Prints "pagecache checks: N passed, N failed"; exit 1 on a failure.
# Needs: a running cluster with pg_strom created and a page cache set; R
# (default cluster.sh) with a psql verb.  PC_ROWS rows (default 200,000).
# Takes under a minute at 200,000 rows, 1-2 minutes at 2,000,000.
# No -e: a failed check is reported and the next one runs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" || exit 2
ROWS=${PC_ROWS:-200000}
passed=0 failed=0
psqlq() { bash "$R" psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
check() {
	if [ "$2" = "$3" ]; then passed=$((passed + 1)); echo "ok: $1"
	else failed=$((failed + 1)); echo "FAILED: $1: got '$2', want '$3'"; fi
}

size=$(psqlq -c "SHOW pg_strom.gpu_page_cache_size")
[ "$size" != 0 ] || { echo "pagecache checks: pg_strom.gpu_page_cache_size is 0"; exit 1; }

psqlq <<SQL || { echo "pagecache checks: setup failed"; exit 1; }
DROP TABLE IF EXISTS pc_fact, pc_dim, pc_unlogged;
CREATE TABLE pc_fact (id int, g int, v int, pad text) WITH (parallel_workers = 2, autovacuum_enabled = off);
INSERT INTO pc_fact SELECT i, i % 17, ((i::bigint * 7919) % 100003)::int, repeat('p', 120) FROM generate_series(1, $ROWS) i;
CREATE TABLE pc_dim (g int, name text);
INSERT INTO pc_dim SELECT i, 'g' || i FROM generate_series(0, 16) i;
CREATE UNLOGGED TABLE pc_unlogged AS SELECT * FROM pc_fact;
VACUUM (FREEZE, ANALYZE) pc_fact;
VACUUM (FREEZE, ANALYZE) pc_dim;
VACUUM (FREEZE, ANALYZE) pc_unlogged;
CHECKPOINT;
-- pc_plan: EXPLAIN ANALYZE of query as one line
CREATE OR REPLACE FUNCTION pc_plan(query text) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE
	line text;
	plan text := '';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
		plan := plan || line || ' | ';
	END LOOP;
	RETURN plan;
END
\$\$;
-- pc_diff: rows of query that differ between pg_strom on and off
CREATE OR REPLACE FUNCTION pc_diff(query text) RETURNS bigint LANGUAGE plpgsql AS \$\$
DECLARE
	diff bigint;
BEGIN
	EXECUTE 'CREATE TEMP TABLE pc_gpu AS ' || query;
	PERFORM set_config('pg_strom.enabled', 'off', true);
	EXECUTE 'SELECT (SELECT count(*) FROM (SELECT * FROM pc_gpu EXCEPT ALL (' || query || ')) a) +'
		 || ' (SELECT count(*) FROM ((' || query || ') EXCEPT ALL SELECT * FROM pc_gpu) b)' INTO diff;
	PERFORM set_config('pg_strom.enabled', 'on', true);
	DROP TABLE pc_gpu;
	RETURN diff;
END
\$\$;
SQL

# the settings of every query: GPU plans at any size, two workers
SETS="SET pg_strom.regression_test_mode = on; SET pg_strom.gpu_setup_cost = 0; SET parallel_setup_cost = 0;
SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2; SET client_min_messages = warning;"
AGG="SELECT g, count(*), sum(v), min(id), max(v) FROM pc_fact GROUP BY g"
ROWSQ="SELECT id, v FROM pc_fact WHERE v % 97 = 1"
JOIN="SELECT d.name, count(*), sum(f.v) FROM pc_fact f JOIN pc_dim d ON d.g = f.g GROUP BY d.name"

# "hits files" of the Device Page Cache line of query's plan
cache_line() {
	psqlq -c "$SETS" -c "SELECT coalesce(substring(pc_plan(\$q\$$1\$q\$) FROM 'Device Page Cache: ([0-9]+ hits, [0-9]+) read'), 'none')" |
		sed 's/ hits,//'
}
diff_of() { psqlq -c "$SETS" -c "SELECT pc_diff(\$q\$$1\$q\$)"; }
hits_of() { echo "$1" | cut -d' ' -f1; }
files_of() { echo "$1" | cut -d' ' -f2; }

# view_of REL COND: "cached_pages hits misses refills" of REL in
# pgstrom.gpu_page_cache_relations(), summed over the devices, once COND
# (an SQL condition on those columns) holds: the service reports once a
# second.  After 10 s, the last row read ("absent" without one).
view_of() {
	local row
	for _ in $(seq 1 50); do
		row=$(psqlq -c "SELECT coalesce(min(concat_ws(' ', cached_pages, hits, misses, refills, ($2))), 'absent')
		  FROM (SELECT sum(cached_pages) AS cached_pages, sum(hits) AS hits, sum(misses) AS misses, sum(refills) AS refills
		          FROM pgstrom.gpu_page_cache_relations() WHERE relation = '$1'::regclass HAVING count(*) > 0) r")
		[ "${row##* }" = t ] && break
		sleep 0.2
	done
	echo "${row% *}"
}
col() { echo "$1" | cut -d' ' -f"$2"; }
# rows of the view for REL's file, whether or not it maps to a relation
view_rows() {
	psqlq -c "SELECT count(*) FROM pgstrom.gpu_page_cache_relations()
	           WHERE relfilenode = pg_relation_filenode('$1')
	             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
}
pages=$(psqlq -c "SELECT relpages FROM pg_class WHERE oid = 'pc_fact'::regclass")
check "before any scan: pc_fact has no row in gpu_page_cache_relations()" "$(view_rows pc_fact)" 0

first=$(cache_line "$AGG")
check "first scan: nothing cached yet, every page read from the files" "$(hits_of "$first") $([ "$(files_of "$first")" -gt 0 ] && echo read)" "0 read"
v=$(view_of pc_fact "cached_pages >= $pages AND misses >= $pages")
check "the view after the first scan: the table's $pages pages cached, as many misses or more, no hits" \
	"$(col "$v" 1) $(col "$v" 2) $([ "$(col "$v" 3)" -ge "$pages" ] && echo missed)" "$pages 0 missed"
second=$(cache_line "$AGG")
check "second scan: every page from the cache" "$(files_of "$second") $([ "$(hits_of "$second")" -gt 0 ] && echo hits)" "0 hits"
v=$(view_of pc_fact "hits >= $pages")
check "the view after the second scan: hits grew by the table's pages, as EXPLAIN counted them" \
	"$(col "$v" 1) $(col "$v" 2)" "$pages $(hits_of "$second")"
check "the view: cached_bytes is cached_pages blocks, the relation is the file's" \
	"$(psqlq -c "SELECT bool_and(cached_bytes = cached_pages * current_setting('block_size')::bigint) AND
	                    bool_and(relfilenode = pg_relation_filenode(relation)) FILTER (WHERE relation IS NOT NULL)
	               FROM pgstrom.gpu_page_cache_relations()")" t
check "GpuPreAgg over cached pages equals PostgreSQL" "$(diff_of "$AGG")" 0
check "GpuScan rows formed from cached pages equal PostgreSQL's" "$(diff_of "$ROWSQ")" 0
check "GpuJoin over cached pages equals PostgreSQL" "$(diff_of "$JOIN")" 0

psqlq -c "UPDATE pc_fact SET v = v + 1000000 WHERE id % 50 = 0"
after_update=$(cache_line "$AGG")
check "after an UPDATE: the changed pages are not served from the cache" \
	"$([ "$(hits_of "$after_update")" -lt "$(hits_of "$second")" ] && echo fewer)" fewer
check "after an UPDATE: GpuPreAgg equals PostgreSQL" "$(diff_of "$AGG")" 0
check "after an UPDATE: GpuScan rows equal PostgreSQL's" "$(diff_of "$ROWSQ")" 0

before=$(view_of pc_fact true)
psqlq -c "VACUUM pc_fact" -c "CHECKPOINT"
after_vacuum=$(cache_line "$AGG")
check "after VACUUM: the map's new LSN sends pages back to the files" \
	"$([ "$(files_of "$after_vacuum")" -gt 0 ] && echo read)" read
v=$(view_of pc_fact "misses >= $(col "$before" 3) + $(files_of "$after_vacuum") AND refills > 0")
check "the view after VACUUM: the pages read again were misses, refilled in their slots, none given up" \
	"$([ "$(col "$v" 3)" -ge $(($(col "$before" 3) + $(files_of "$after_vacuum"))) ] && echo missed) $([ "$(col "$v" 4)" -gt 0 ] && echo refilled) $([ "$(col "$v" 1)" -ge "$(col "$before" 1)" ] && echo kept)" \
	"missed refilled kept"
check "after VACUUM: GpuPreAgg equals PostgreSQL" "$(diff_of "$AGG")" 0
again=$(cache_line "$AGG")
check "after VACUUM, scanned again: every page from the cache" "$(files_of "$again")" 0
check "after VACUUM, from the cache: GpuScan rows equal PostgreSQL's" "$(diff_of "$ROWSQ")" 0

# A snapshot taken before other sessions update, delete and vacuum keeps
# seeing its rows, on the GPU as on the CPU.
snap=$(psqlq <<SQL
$SETS
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM pc_dim;
CREATE TEMP TABLE pc_before AS $AGG;
\! bash "$R" psql -X -q -c "UPDATE pc_fact SET v = -v WHERE id % 7 = 0" -c "DELETE FROM pc_fact WHERE id % 11 = 0" -c "VACUUM pc_fact" -c "CHECKPOINT"
SELECT (SELECT count(*) FROM (TABLE pc_before EXCEPT ALL $AGG) a) + (SELECT count(*) FROM (($AGG) EXCEPT ALL TABLE pc_before) b);
SET LOCAL pg_strom.enabled = off;
SELECT (SELECT count(*) FROM (TABLE pc_before EXCEPT ALL $AGG) a) + (SELECT count(*) FROM (($AGG) EXCEPT ALL TABLE pc_before) b);
COMMIT;
SQL
)
check "REPEATABLE READ across UPDATE, DELETE and VACUUM: GPU and CPU keep the snapshot's answer" "$(echo $snap)" "17 0 0"
check "after the concurrent writes: GpuPreAgg equals PostgreSQL" "$(diff_of "$AGG")" 0
check "after the concurrent writes: GpuJoin equals PostgreSQL" "$(diff_of "$JOIN")" 0
cache_line "$AGG" >/dev/null
check "after the concurrent writes, from the cache: GpuPreAgg equals PostgreSQL" "$(diff_of "$AGG")" 0

off=$(psqlq -c "$SETS" -c "SET pg_strom.use_page_cache = off" -c "SELECT pc_plan(\$q\$$AGG\$q\$) ~ 'Device Page Cache'")
check "pg_strom.use_page_cache off: no cache in the plan" "$off" f
unlogged=$(cache_line "SELECT g, count(*), sum(v) FROM pc_unlogged GROUP BY g")
check "an unlogged table is never cached" "$unlogged" none
check "an unlogged table: GpuPreAgg equals PostgreSQL" "$(diff_of "SELECT g, count(*), sum(v) FROM pc_unlogged GROUP BY g")" 0
sleep 2 # a report made after the unlogged table's scans
check "the view: no row for the unlogged table, pc_fact's still there" \
	"$(view_rows pc_unlogged) $([ "$(view_rows pc_fact)" -gt 0 ] && echo present)" "0 present"

# Pages that lie dirty in shared buffers (loaded and vacuumed, no
# checkpoint since): their files are behind, so they go the zero-copy way,
# and the device keeps the images it gathered under their stamps.  Every
# change below clears visibility-map bits; none is followed by a checkpoint.
psqlq <<SQL || { echo "pagecache checks: dirty-table setup failed"; exit 1; }
CREATE TABLE pc_dirty (id int, g int, v int, pad text) WITH (fillfactor = 50, autovacuum_enabled = off);
INSERT INTO pc_dirty SELECT i, i % 17, ((i::bigint * 7919) % 100003)::int, repeat('d', 120) FROM generate_series(1, $ROWS / 10) i;
VACUUM (FREEZE, ANALYZE) pc_dirty;
SQL
DAGG="SELECT g, count(*), sum(v), min(id), max(v) FROM pc_dirty GROUP BY g"
DROWS="SELECT id, v FROM pc_dirty WHERE v % 97 = 1"
dpages=$(psqlq -c "SELECT relpages FROM pg_class WHERE oid = 'pc_dirty'::regclass")
cache_line "$DAGG" >/dev/null
v=$(view_of pc_dirty "cached_pages >= $dpages")
check "dirty pages: the first scan caches all $dpages pages" "$(col "$v" 1)" "$dpages"
d2=$(cache_line "$DAGG")
check "dirty pages: the second scan takes every page from the cache" "$(hits_of "$d2") $(files_of "$d2")" "$dpages 0"
check "dirty pages from the cache: GpuPreAgg equals PostgreSQL" "$(diff_of "$DAGG")" 0
check "dirty pages from the cache: GpuScan rows equal PostgreSQL's" "$(diff_of "$DROWS")" 0
# an UPDATE (HOT, into the pages' free space), an INSERT into free space and
# a DELETE, each on pages the cache holds
psqlq -c "UPDATE pc_dirty SET v = v + 7 WHERE id % 40 = 0"
check "dirty pages after a HOT UPDATE: GpuPreAgg equals PostgreSQL" "$(diff_of "$DAGG")" 0
d3=$(cache_line "$DAGG")
check "dirty pages after a HOT UPDATE: the changed pages are not served from the cache" \
	"$([ "$(hits_of "$d3")" -lt "$dpages" ] && echo fewer)" fewer
psqlq -c "INSERT INTO pc_dirty SELECT -i, i % 17, i, 'new' FROM generate_series(1, 300) i"
psqlq -c "DELETE FROM pc_dirty WHERE id % 33 = 0"
check "dirty pages after INSERT and DELETE: GpuPreAgg equals PostgreSQL" "$(diff_of "$DAGG")" 0
check "dirty pages after INSERT and DELETE: GpuScan rows equal PostgreSQL's" "$(diff_of "$DROWS")" 0
# VACUUM prunes and sets the bits again under a new map LSN: the images are
# gathered again and then served
psqlq -c "VACUUM pc_dirty"
check "dirty pages after VACUUM: GpuPreAgg equals PostgreSQL" "$(diff_of "$DAGG")" 0
d4=$(cache_line "$DAGG")
check "dirty pages after VACUUM, scanned again: every page from the cache" "$(files_of "$d4") $([ "$(hits_of "$d4")" -gt 0 ] && echo hits)" "0 hits"
check "dirty pages after VACUUM, from the cache: GpuScan rows equal PostgreSQL's" "$(diff_of "$DROWS")" 0
check "dirty pages after VACUUM, from the cache: GpuPreAgg equals PostgreSQL" "$(diff_of "$DAGG")" 0
# freezing rewrites tuple headers and sets the all-frozen bits (a new map
# LSN); a rewrite and TRUNCATE give the table a new file
psqlq -c "UPDATE pc_dirty SET v = v - 1 WHERE id % 9 = 0" -c "VACUUM (FREEZE) pc_dirty"
check "dirty pages after VACUUM (FREEZE): GpuPreAgg equals PostgreSQL" "$(diff_of "$DAGG")" 0
cache_line "$DAGG" >/dev/null
check "dirty pages after VACUUM (FREEZE), from the cache: GpuScan rows equal PostgreSQL's" "$(diff_of "$DROWS")" 0
psqlq -c "VACUUM (FULL, FREEZE) pc_dirty" -c "VACUUM pc_dirty"
check "dirty pages after VACUUM FULL: GpuPreAgg equals PostgreSQL" "$(diff_of "$DAGG")" 0
d5=$(cache_line "$DAGG")
check "dirty pages after VACUUM FULL, scanned again: every page of the new file from the cache" "$(files_of "$d5") $([ "$(hits_of "$d5")" -gt 0 ] && echo hits)" "0 hits"
psqlq <<SQL
BEGIN;
TRUNCATE pc_dirty;
INSERT INTO pc_dirty SELECT i, i % 5, i * 3, 't' FROM generate_series(1, 5000) i;
COMMIT;
VACUUM (FREEZE) pc_dirty;
SQL
check "dirty pages after TRUNCATE and a new load: GpuPreAgg equals PostgreSQL" "$(diff_of "$DAGG")" 0
cache_line "$DAGG" >/dev/null
check "dirty pages after TRUNCATE, from the cache: GpuScan rows equal PostgreSQL's" "$(diff_of "$DROWS")" 0

psqlq -c "DROP TABLE pc_fact, pc_dim, pc_unlogged, pc_dirty" -c "DROP FUNCTION pc_plan(text), pc_diff(text)"
echo "pagecache checks: $passed passed, $failed failed"
[ "$failed" = 0 ]
