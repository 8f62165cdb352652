-- Generates kernels/test/vectors.txt from a PostgreSQL 15 server (see
-- gen_vectors.sh).  Database must be UTF8, collation C.
\set ON_ERROR_STOP 1
DROP TABLE IF EXISTS kt;
CREATE EXTENSION IF NOT EXISTS pageinspect;
CREATE TABLE kt (id int4, i2 int2, i8 int8, f4 float4, f8 float8, n numeric,
                 d date, ts timestamp, t text, c char(4), b bool, v varchar(10))
  WITH (autovacuum_enabled = off);
INSERT INTO kt VALUES
 (1, 1, 10, 1.5, 2.5, 1.5, '2024-02-29', '2024-02-29 13:45:10', 'abc', 'ab', true, 'x'),
 (2, -5, -10, -0.0, 0.0, -1.49, '2000-01-01', '2000-01-01 00:00:00', 'a%c', 'ab  ', false, 'xyz'),
 (3, 32767, 9223372036854775807, 'NaN', 'NaN', 123456789.123456789, '1999-12-31', '1999-12-31 23:59:59.999999', 'abbc', 'a', NULL, NULL),
 (4, -32768, -9223372036854775808, 'Infinity', '-Infinity', -0.0001, '0001-01-01 BC', '0044-03-15 12:00:00 BC', '', '', true, ''),
 (5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (6, 100, 3000000000, 3.4e38, 1e308, 99999999999999999999999999999999999999, 'infinity', 'infinity', 'ébc', 'ébc', false, 'é'),
 (7, 7, 7, 1e-45, 5e-324, 'NaN', '-infinity', '-infinity', repeat('ab', 100), 'zz', true, 'a_c'),
 (8, 0, 0, 0, 0, 0.000, '2023-12-31', '2023-12-31 23:59:00', 'a\bc', 'ab c', true, 'a\'),
 (9, 2, 4611686018427387904, 16777217, 1e-300, 100000000000000000000000000000000000000, '2024-01-01', '2024-01-01 00:00:00', 'x_y', 'x', false, 'x_y'),
 (10, -1, -1, -1.5, -2.5, -2.5, '5874897-12-31', '294276-12-31 23:59:59', 'ABC', 'ABC', true, 'ABC'),
 (11, 3, 3, 2.5, 3.5, 0.5, '2020-06-15', '1970-01-01 00:00:00', 'é', 'abcd', true, 'abc'),
 (12, 1000, 1000, 1e20, 1e200, 1e-30, '2016-10-10', '2016-10-10 10:10:10', 'ñandú', 'ñ', false, 'ñandú'),
 (13, -300, 44, 0.1, 0.1, 12345678901234567890.12345678901234567890, '1600-02-29', '1600-02-29 06:07:08', 'aXc', 'Xy', NULL, 'aXc'),
 (14, 255, -44, -3.4e38, -1e308, -99.995, '1900-03-01', '1900-03-01 00:00:01', 'abc%', 'ab%', true, 'ab'),
 (15, 16, 1, 65504, 2.5e-310, 1e-39, '0100-02-28', '0100-02-28 23:00:00', 'a', 'a  b', false, 'a');
-- a compressed inline value and a 4-byte header value
INSERT INTO kt (id, t, v) VALUES (1000, repeat('abc', 2000), 'long');
INSERT INTO kt (id, t, v, n) VALUES (16, repeat('é', 150), 'mid', 1);
-- upper-case non-ASCII letters, which ILIKE under a "C" ctype does not fold
INSERT INTO kt (id, t, v) VALUES (17, 'ÉBC', 'ÉBC');
\o :outfile
SELECT 'PAGE ' || encode(get_raw_page('kt', 0), 'hex');
SELECT 'LP ' || id || ' ' || (ctid::text::point)[1]::int FROM kt ORDER BY id;
\o
