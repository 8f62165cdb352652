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
