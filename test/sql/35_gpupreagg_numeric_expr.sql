--
-- Aggregates of numeric expressions whose display scale their form fixes
-- (numeric(p,s) columns, integers and constants under +, - and *) or
-- bounds (division, CASE branches of different scales, wide numerics):
-- offered as GpuPreAgg, answers equal to PostgreSQL's, display scale
-- included.  Others (unconstrained numerics, casts from float, scales past
-- the device's bound) stay on the CPU with the same answers.
--
SET pg_strom.regression_test_mode = on;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE nx (id int, g int, price numeric(15,2), disc numeric(15,2),
                 tax numeric(15,2), q numeric(12,0), big numeric(30,2), free numeric);
INSERT INTO nx
SELECT i, i % 7, ((i * 7919) % 100000) / 100.0 - 200, ((i * 31) % 11) / 100.0,
       ((i * 17) % 9) / 100.0, (i % 50) + 1, i * 1e20, i / 3.0
  FROM generate_series(1, 20000) i;
UPDATE nx SET price = NULL WHERE id % 997 = 0;
VACUUM ANALYZE nx;

-- 'gpu' or 'cpu' (is there a GpuPreAgg), then whether the answers with
-- pg_strom on and off are equal as multisets of rows as text
CREATE FUNCTION nx_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	plan text := '';
	line text;
	diff bigint;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		plan := plan || line || E'\n';
	END LOOP;
	DROP TABLE IF EXISTS nx_on, nx_off;
	EXECUTE 'CREATE TEMP TABLE nx_on AS ' || q;
	PERFORM set_config('pg_strom.enabled', 'off', true);
	EXECUTE 'CREATE TEMP TABLE nx_off AS ' || q;
	PERFORM set_config('pg_strom.enabled', 'on', true);
	SELECT count(*) INTO diff FROM
		((SELECT t::text FROM nx_on t EXCEPT ALL SELECT t::text FROM nx_off t)
		 UNION ALL
		 (SELECT t::text FROM nx_off t EXCEPT ALL SELECT t::text FROM nx_on t)) d;
	RETURN CASE WHEN plan LIKE '%GpuPreAgg%' THEN 'gpu' ELSE 'cpu' END || ' ' ||
		CASE WHEN diff = 0 THEN 'equal' ELSE 'DIFFERENT (' || diff || ' rows)' END;
END $$;

-- on the device
SELECT nx_check('SELECT g, sum(price * (1 - disc)) AS a1 FROM nx GROUP BY g');
SELECT nx_check('SELECT floor(price / 100) AS k, sum(ceil(price * disc)) AS a1, count(*) AS a2 FROM nx GROUP BY 1');
SELECT nx_check('SELECT g, sum(floor(big / 7)) AS a1, min(ceil(price)) AS a2 FROM nx GROUP BY g');
SELECT nx_check('SELECT g, sum(price * (1 - disc) * (1 + tax)) AS a1, avg(price * disc) AS a2 FROM nx GROUP BY g');
SELECT nx_check('SELECT g, sum(q * 2 + 1) AS a1, sum(-price) AS a2, sum(abs(price)) AS a3 FROM nx GROUP BY g');
SELECT nx_check('SELECT g, sum(price * 1.5) AS a1, sum(price * 0.100) AS a2 FROM nx GROUP BY g');
SELECT nx_check('SELECT g, sum(id::numeric * price) AS a1, sum(id::bigint * disc) AS a2 FROM nx GROUP BY g');
SELECT nx_check('SELECT g, min(price) AS a1, max(disc) AS a2, sum(price - disc) AS a3 FROM nx GROUP BY g');
SELECT nx_check('SELECT g, sum(CASE WHEN g = 1 THEN price ELSE 0.00 END) AS a1 FROM nx GROUP BY g');
SELECT nx_check('SELECT g, sum(CASE WHEN g = 1 THEN price END) AS a1, sum(coalesce(price, 0.00)) AS a2 FROM nx GROUP BY g');
SELECT nx_check('SELECT sum(price * (1 - disc)) AS a1, avg(price * (1 - disc)) AS a2 FROM nx WHERE g = 3');
SELECT nx_check('SELECT g, sum(price * (1 - disc)) FILTER (WHERE disc > 0.05) AS a1 FROM nx GROUP BY g');
-- rounded or truncated to a constant scale, quotients rounded so
SELECT nx_check('SELECT g, sum(round(price / 3, 2)) AS a1, avg(trunc(price * disc, 1)) AS a2 FROM nx GROUP BY g');
SELECT nx_check('SELECT g, sum(round(price, -1)) AS a1, sum(round(q / 7)) AS a2 FROM nx GROUP BY g');
SELECT nx_check('SELECT g, sum(price) AS a1 FROM nx WHERE price / 7 > 10 GROUP BY g');
-- group keys of quotients: each group shows its value at numeric_div's scale
SELECT nx_check('SELECT price / 4 AS k, count(*) AS a1 FROM nx GROUP BY 1');
SELECT nx_check('SELECT round(price / 7, 1) AS k, sum(disc) AS a1 FROM nx GROUP BY 1');
-- float aggregates of numeric values (a float sum's last bits depend on
-- the order it adds in, so minima, maxima and counts)
SELECT nx_check('SELECT g, max(price::float8) AS a1, min(disc::float4) AS a2, count(*) FILTER (WHERE price::float8 > 100.5) AS a3 FROM nx GROUP BY g');
-- values too large for the device's int64: those rows are added on the CPU
SELECT nx_check('SELECT g, sum(price * 100000000000000.00) AS a1 FROM nx GROUP BY g');
-- a group whose only rows are NULL, and no rows at all
SELECT nx_check('SELECT g, sum(price * disc) AS a1 FROM nx WHERE id % 997 = 0 GROUP BY g');
SELECT nx_check('SELECT sum(price * disc) AS a1, avg(price * disc) AS a2 FROM nx WHERE id < 0');

-- display scales that vary from row to row, bounded by the form: the sum
-- is kept at the bound, shown at the largest scale added
SELECT nx_check('SELECT g, sum(CASE WHEN g = 1 THEN price ELSE 0 END) AS a1 FROM nx GROUP BY g');
SELECT nx_check('SELECT g, sum(CASE WHEN disc > 0.05 THEN price * (1 - disc) ELSE 0 END) AS a1 FROM nx GROUP BY g');
SELECT nx_check('SELECT g, sum(price / 2) AS a1, avg(price / 7) AS a2, sum(-price / 3) AS a3 FROM nx GROUP BY g');
SELECT nx_check('SELECT g, sum(price::numeric(15,2) / 100) AS a1, avg(q / 100) AS a2 FROM nx GROUP BY g');
SELECT nx_check('SELECT g, sum(disc / 1000) AS a1, sum(q / (abs(price) + 1)) AS a2 FROM nx GROUP BY g');
SELECT nx_check('SELECT sum(price / 3) AS a1, avg(price * disc / 9) AS a2 FROM nx WHERE g = 2');
SELECT nx_check('SELECT g, sum(price / 3) FILTER (WHERE g > 10) AS a1, avg(price / 3) FILTER (WHERE g > 10) AS a2 FROM nx GROUP BY g');
-- numeric(p > 18): values past an int128 at the bound are added on the CPU
SELECT nx_check('SELECT g, sum(big * price) AS a1, sum(big / 3) AS a2, sum(-big / 7) AS a3 FROM nx GROUP BY g');
SELECT nx_check('SELECT g, sum(price * price * price * price * price * price * price * price * price * price) AS a1 FROM nx GROUP BY g');

-- on the CPU: no bound on the scale (unconstrained, from float, too large)
SELECT nx_check('SELECT g, sum(free * 2) AS a1 FROM nx GROUP BY g');
SELECT nx_check('SELECT g, sum(price * disc::float8::numeric) AS a1 FROM nx GROUP BY g');
-- a float cast to numeric and rounded to a constant scale: a fixed scale;
-- as a key, each value at its own display scale
SELECT nx_check('SELECT g, sum(round((price::float8 / 7)::numeric, 2)) AS a1, avg(round(disc::float4::numeric, 1)) AS a2 FROM nx GROUP BY g');
SELECT nx_check('SELECT k::text AS k, a1 FROM (SELECT (price::float8 / 8)::numeric AS k, count(*) AS a1 FROM nx WHERE id % 10 = 0 GROUP BY 1) s');
SELECT nx_check('SELECT g, sum(price * price * price * price * price * price * price * price * price * price * price * price * price * price * price * price * price) AS a1 FROM nx GROUP BY g');
SELECT nx_check('SELECT g, sum(disc / 100000000000000000000) AS a1 FROM nx GROUP BY g');
-- a minimum or maximum of an expression, which the device does not
-- accumulate (its accumulator is an int64): its values become keys
SELECT nx_check('SELECT g, min(price - disc) AS a1, max(price * disc) AS a2 FROM nx GROUP BY g');

-- the displayed scale is PostgreSQL's
SELECT g, sum(price * (1 - disc)), avg(price * disc), sum(q * 2 + 1)
  FROM nx WHERE g < 3 GROUP BY g ORDER BY g;
SELECT g, sum(round(price / 3, 2)), sum(trunc(price, 5)), min(round(price, 1))
  FROM nx WHERE g < 3 GROUP BY g ORDER BY g;
SELECT price / 4 AS k, count(*) FROM nx WHERE id < 200 AND price < 0
 GROUP BY 1 ORDER BY 1 LIMIT 5;
SELECT g, sum(price / 3), avg(price / 7), sum(CASE WHEN g = 1 THEN price ELSE 0 END)
  FROM nx WHERE g < 3 GROUP BY g ORDER BY g;
SELECT g, sum(big / 3), sum(disc / 1000) FROM nx WHERE g < 2 GROUP BY g ORDER BY g;

-- NaN among values of varying scales: counted apart, the sum is NaN
CREATE TABLE nx_nan (g int, v numeric(10,2));
INSERT INTO nx_nan SELECT i % 3, CASE WHEN i = 7 THEN 'NaN' ELSE i / 4.0 END
  FROM generate_series(1, 300) i;
SELECT nx_check('SELECT g, sum(v / 3) AS a1, avg(v / 3) AS a2, count(*) AS a3 FROM nx_nan GROUP BY g');
-- ceil and floor: display scale 0, NaN kept
SELECT nx_check('SELECT g, sum(floor(v / 3)) AS a1, sum(ceil(v)) AS a2, avg(ceiling(v * 2)) AS a3 FROM nx_nan GROUP BY g');
DROP TABLE nx_nan;

-- floor, ceil, round, trunc and sign of double precision as grouping keys
-- and aggregate arguments, NaN and infinities included
SELECT * FROM check_gpupreagg('SELECT floor(f8 / 100) AS k, count(*) AS n, sum(round(f4)) AS r, sum(trunc(f8)) AS t, sum(sign(f8)) AS s, max(ceil(f4)) AS c FROM t_float GROUP BY 1', 'k');
SELECT * FROM check_gpupreagg('SELECT ceil(f8) AS k, sign(f4) AS s, count(*) AS n, min(floor(f4)) AS lo FROM t_float WHERE id < 0 GROUP BY 1, 2', 'k, s');

DROP FUNCTION nx_check(text);
DROP TABLE nx, nx_on, nx_off;
