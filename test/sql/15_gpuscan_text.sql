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
