--
-- GpuScan over text, varchar and bpchar (this database's collation is C)
--
SET pg_strom.regression_test_mode = on;
-- a role named like the extension's schema would put it first in the search path
SET search_path = public;
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t = 'k12'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t > 'k5' AND t < 'k7'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE v <= 'v2' OR v = ''$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE c = 'c12'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE c = 'a b'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE c > 'c5' AND c <> 'c7'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t LIKE 'k1%x'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t LIKE 'k_2'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t NOT LIKE '%x%'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t LIKE '100\%'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t LIKE 'a\_b' OR v LIKE '_漢%'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t LIKE 'ä__'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE v LIKE 'v9%'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t = v::text OR t IN ('k1', 'k2xx', '')$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t IS NULL AND c IS NOT NULL$$);
-- ILIKE under the C collation: ASCII letters compare without case, other
-- characters as they are (PostgreSQL lowers only ASCII letters there)
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t ILIKE 'K1%X'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE v NOT ILIKE 'V1%' AND t ILIKE '_12'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t ILIKE 'Ä漢%' OR v ILIKE 'ä漢%'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t ILIKE ANY (ARRAY['A\_B', 'BACK%', '100\%X'])$$);
-- regular expressions of literal text with "^", "$", "." and ".*": the
-- device matches them as the LIKE patterns they equal (LIKE's "%", "_"
-- and "\" as literals); any other keeps the CPU plan
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t ~ '^k1.*x$'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t ~ '12' AND v !~ '^v9'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t ~ '^100%' OR t ~ 'a_b' OR t ~ '0\.' OR t ~ 'back\\slash'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t ~ '^ä.字' OR v ~ '漢$' OR t ~ '^$'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t ~* '^K1..$' OR v !~* 'V1'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t ~ '^k[12]' OR t ~ 'x+$'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE t ~ '\d'$$);
-- char(n) is matched as stored, its padding included (c is char(8))
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE c LIKE 'c1%' AND c NOT LIKE '%1 %'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE c LIKE 'a b' OR c LIKE 'a b     ' OR c ILIKE 'C12%'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE c ~ '^c1.     $' OR c ~ '2 ' OR c ~* '^C12 '$$);
-- text functions: their results are parts of the value's bytes, counted in
-- characters (UTF-8 sequences); a bpchar loses its trailing spaces first,
-- as its cast to text does
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE substring(t from 2 for 2) = '12'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE substr(v, 2) = '漢字x' OR substring(t, 0, 3) = 'ä'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE substring(t, -1, 3) = 'k' OR substring(v from 3) = ''$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE substring(c, 2, 1) = ' ' OR substring(t, 2147483647, 2147483647) <> ''$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE length(t) = 3 OR char_length(c) = 2$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE octet_length(t) = 6 OR character_length(v) > 4$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE position('字' in t) = 3 OR strpos(v, '9') = 2$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE strpos(t, '') = 1 AND starts_with(t, 'k9')$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE left(t, 2) = 'k1' OR right(v, -2) = '字x' OR left(t, -3) = 'ä'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE right(t, 2) = 'xx' OR right(v, 10) = 'a漢' OR left(v, -100) <> ''$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE btrim(t) = 'a b' OR rtrim(v) = 'a b' OR ltrim(c) = 'a b'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE c = 'a b'::text OR c::text = v$$);
-- a negative substring length: PostgreSQL's error, raised on the CPU
SELECT count(*) FROM t_text WHERE substring(t, 1, id) = 'k';
-- split_part: fields between non-overlapping occurrences of the separator
-- (bytewise), counted from the end when negative; an empty separator makes
-- the whole value its only field
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE split_part(t, '1', 1) = 'k' OR split_part(v, '9', -1) = ''$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE split_part(t, '', 1) = 'k12' OR split_part(t, '', -1) = 'a b ' OR split_part(c, ' ', 2) = 'b'$$);
SELECT * FROM check_gpuscan($$SELECT id, split_part(t, 'x', 2) AS x2 FROM t_text WHERE split_part(t, 'x', 2) = '' AND split_part(v, '漢', -2) IN ('', 'ä', 'a')$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE split_part(t || ',' || v || ',,' || c, ',', abs(id) % 5 + 1) LIKE 'v1%'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE split_part(t || 'xx' || v, 'x', -(abs(id) % 6) - 1) = ''$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE split_part(v, '', 2) <> '' OR split_part('', t, 1) <> '' OR split_part(t, 'k', -3) = '1'$$);
-- field 0: PostgreSQL's error, raised on the CPU
SELECT count(*) FROM t_text WHERE split_part(t, 'x', id - id) = 'k';
-- reverse: characters (UTF-8 sequences kept whole) last first
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE reverse(t) LIKE 'x%' OR reverse(v) = '字漢ä' OR reverse(c) = 'b a'$$);
SELECT * FROM check_gpuscan($$SELECT id, reverse(t) AS rt, reverse(v || c) AS rvc FROM t_text WHERE reverse(reverse(t)) = t AND id % 5 = 0$$);
SELECT * FROM check_gpuscan($$SELECT id, reverse(v) AS rv FROM t_text WHERE id < 0 AND reverse(v) IS NOT DISTINCT FROM reverse(v)$$);
SELECT id, reverse(t) AS rt, reverse(v) AS rv, reverse(c) AS rc FROM t_text WHERE id < -1 AND reverse(v) <> v ORDER BY id;
-- replace: every occurrence, left to right, not overlapping (bytewise); an
-- empty pattern or value is returned as it is; a result longer than the
-- node's scratch share is evaluated on the CPU
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE replace(t, 'x', '') = 'k12' OR replace(v, '漢', 'kanji') LIKE '%kanji%' OR replace(c, ' ', '_') = 'a_b'$$);
SELECT * FROM check_gpuscan($$SELECT id, replace(t, 'xx', 'y') AS r1, replace(v, '', 'z') AS r2, replace(t || v, '1', repeat('long', 300)) AS r3 FROM t_text WHERE replace(t, 'k', 'K') <> upper(t) OR t IS NULL$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_text WHERE octet_length(replace(t, 'xx', 'yyy')) = octet_length(t) + 1 OR octet_length(replace(v, '漢', 'K')) = octet_length(v) - 2$$);
SELECT * FROM check_gpuscan($$SELECT id FROM t_text WHERE replace(t || t, t, 'ab') = 'abab' OR replace('aaaa', 'aa', v) = v || v$$);
SELECT id, replace(t, 'xx', 'y') AS r1, replace(v, '漢', '') AS r2, replace('aaa', 'aa', t) AS r3 FROM t_text WHERE id < -1 ORDER BY id;
-- casts to text print as the type's output function does (a bool as
-- 'true'/'false'); dates and timestamps only under DateStyle ISO (pg_regress
-- sets Postgres)
SET DateStyle = 'ISO, MDY';
SELECT * FROM check_gpuscan($$SELECT * FROM t_int WHERE a::text LIKE '-1%' OR b::text = '0' OR c::text LIKE '%07'$$);
SELECT * FROM check_gpuscan($$SELECT id, c::varchar AS cv FROM t_int WHERE 'x' || c || a LIKE 'x-9%' OR length(b::text) = 11$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_numeric WHERE m::text LIKE '%.5_' OR n::text LIKE '-0.000%' OR (m / 3)::text LIKE '%3333'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_numeric WHERE (m * 100)::text LIKE '%.0000' OR round(n, 1)::text LIKE '%.0' OR n::text = '0'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_datetime WHERE d::text LIKE '%BC' OR d::text LIKE '2000-02%' OR d::text = 'infinity'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_datetime WHERE ts::text LIKE '%:59' OR ts::text LIKE '%BC' OR ts::text LIKE '-inf%'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_datetime WHERE 'y' || d = 'y5874897-12-31' OR d::varchar LIKE '0001-%'$$);
-- concat: each argument as its output function prints it, NULL as nothing
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE concat(t, '|', v, id) LIKE 'k1%|v1%' OR concat(NULL::text, id, NULL::int) = '-7'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_int WHERE concat(a, ',', b, ',', c) LIKE '-1%,%,%7'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_datetime WHERE concat('y', d, ' ', ts) LIKE 'y2000-02-29 %'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE concat(c, 'x') = 'a bx'$$);
-- concat_ws: the separator between the arguments that are not NULL, ''
-- when all are, NULL for a NULL separator
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE concat_ws('|', t, v, id) LIKE 'k1%|v%|%' OR concat_ws(', ', NULL::text, v, NULL::int) = 'v12'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE concat_ws('-', t, NULL::text) = '' OR concat_ws('', t, v) LIKE 'a_ba_b' OR concat_ws(NULL, t, v) IS NOT NULL$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_int WHERE concat_ws('/', a, b, c) LIKE '-1%/%' AND concat_ws('/', a) NOT LIKE '%/%'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_text WHERE concat_ws(v, t, t) LIKE 'k1%'$$);
CREATE TABLE t_print (id int, f bool, ts timestamp);
INSERT INTO t_print
SELECT i, CASE WHEN i % 5 = 0 THEN NULL ELSE i % 3 = 0 END,
       timestamp '1999-12-31 23:59:58' + i * interval '1 hour 7 minutes 0.000123 second'
  FROM generate_series(1, 5000) i;
INSERT INTO t_print VALUES (-1, NULL, '0044-03-15 12:00:00.000001 BC'), (-2, true, '294276-12-31 23:59:59.999999'),
	(-3, false, '2000-01-01 00:00:00.1'), (-4, true, '2000-01-01 00:00:00.01');
SELECT * FROM check_gpuscan($$SELECT * FROM t_print WHERE f::text = 'true' OR f || '!' = 'false!'$$);
SELECT * FROM check_gpuscan($$SELECT * FROM t_print WHERE ts::text LIKE '%.%3' OR ts::text LIKE '%.1' OR ts::text LIKE '%.01' OR ts::text LIKE '%BC'$$);
SET DateStyle = 'German, DMY';
SELECT * FROM check_gpuscan($$SELECT * FROM t_datetime WHERE d::text LIKE '%.02.%'$$);
SET DateStyle = 'Postgres, MDY';
SELECT * FROM check_gpuscan($$SELECT * FROM t_datetime WHERE d::text LIKE '02-%'$$);
RESET DateStyle;
DROP TABLE t_print;
