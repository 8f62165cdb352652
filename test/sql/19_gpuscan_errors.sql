--
-- Errors evaluated for device quals are PostgreSQL's own
--
SET pg_strom.regression_test_mode = on;
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
SELECT count(*) FROM t_int WHERE b / (a - a) > 0;
SELECT count(*) FROM t_int WHERE b + 2147483647 > 0;
SELECT count(*) FROM t_int WHERE c * 4 > 0;
SELECT count(*) FROM t_int WHERE a * 2::int2 > 0;
SELECT count(*) FROM t_float WHERE f8 * 1e300 > 0;
SELECT count(*) FROM t_float WHERE f8 / 0.0 > 1;
SELECT count(*) FROM t_datetime WHERE d + 1000000 > '2000-01-01';
SELECT count(*) FROM t_float WHERE f8::int4 > 0;
SELECT count(*) FROM t_numeric WHERE m::int2 > 0;
SELECT count(*) FROM t_text WHERE t LIKE 'k12\';
