--
-- Columns of domain types are their base types on the device: quals,
-- grouping keys, aggregate arguments and join keys over them run there and
-- give PostgreSQL's answers; a coercion to a domain (which must run the
-- domain's checks) stays on the CPU.
--
SET pg_strom.regression_test_mode = on;
SET search_path = public;
SET max_parallel_workers_per_gather = 0;
CREATE DOMAIN dm_qty AS int4 CHECK (VALUE >= 0);
CREATE DOMAIN dm_money AS numeric(15,2);
CREATE DOMAIN dm_code AS text COLLATE "C" CHECK (length(VALUE) <= 8);
CREATE DOMAIN dm_day AS date;
CREATE DOMAIN dm_qty2 AS dm_qty;		-- a domain over a domain
CREATE TABLE dm_fact (id int, qty dm_qty, price dm_money, code dm_code,
					  day dm_day, q2 dm_qty2, k int8);
INSERT INTO dm_fact
SELECT i, CASE WHEN i % 13 = 0 THEN NULL ELSE i % 50 END,
	   ((i * 37) % 100000) / 100.0,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE 'c' || (i % 40) END,
	   date '2024-01-01' + (i % 400),
	   i % 7, i % 300
  FROM generate_series(1, 30000) i;
CREATE TABLE dm_dim (code dm_code, name text);
INSERT INTO dm_dim SELECT 'c' || i, 'name ' || i FROM generate_series(0, 29) i;
VACUUM ANALYZE dm_fact, dm_dim;
-- quals
EXPLAIN (COSTS OFF) SELECT id FROM dm_fact WHERE qty > 40 AND code LIKE 'c1%';
SELECT * FROM check_gpuscan($$SELECT id, qty, code FROM dm_fact WHERE qty > 40 AND code LIKE 'c1%'$$);
SELECT * FROM check_gpuscan($$SELECT id FROM dm_fact WHERE price BETWEEN 100 AND 200.5 AND day < '2024-06-01'$$);
SELECT * FROM check_gpuscan($$SELECT id FROM dm_fact WHERE q2 = 3 AND qty + q2 > 20$$);
-- grouping keys and aggregate arguments
EXPLAIN (COSTS OFF) SELECT code, sum(qty), sum(price) FROM dm_fact GROUP BY code;
SELECT * FROM check_gpupreagg($$SELECT code, count(*) AS n, sum(qty) AS s, sum(price) AS p, min(day) AS d FROM dm_fact GROUP BY code$$, 'code');
SELECT * FROM check_gpupreagg($$SELECT day, q2, avg(price) AS a, max(qty) AS m FROM dm_fact WHERE qty < 30 GROUP BY day, q2$$, 'day, q2');
-- join keys
EXPLAIN (COSTS OFF) SELECT f.id, d.name FROM dm_fact f JOIN dm_dim d ON f.code = d.code;
SELECT * FROM check_gpujoin($$SELECT f.id, d.name, f.price FROM dm_fact f JOIN dm_dim d ON f.code = d.code$$);
SELECT * FROM check_gpupreagg($$SELECT d.name, sum(f.price) AS p FROM dm_fact f JOIN dm_dim d ON f.code = d.code GROUP BY d.name$$, 'name');
-- a coercion to a domain runs its checks: it stays on the CPU
SET client_min_messages = debug2;
EXPLAIN (COSTS OFF) SELECT id FROM dm_fact WHERE k::dm_qty > 250;
RESET client_min_messages;
SELECT count(*) FROM dm_fact WHERE k::dm_qty > 250;
DROP TABLE dm_fact, dm_dim;
DROP DOMAIN dm_qty2, dm_qty, dm_money, dm_code, dm_day;
