--
-- The extension's objects
--
-- a role named like the schema would put pgstrom on the search path
-- through "$user" and change how names print
SET search_path = public;
CREATE EXTENSION pg_strom;

SELECT e.extname, e.extversion, n.nspname AS schema, e.extrelocatable
  FROM pg_extension e
  JOIN pg_namespace n ON n.oid = e.extnamespace
 WHERE e.extname = 'pg_strom';

-- functions, with their signatures
SELECT p.oid::regprocedure AS function,
       pg_get_function_result(p.oid) AS result,
       l.lanname AS language,
       p.provolatile, p.proparallel, p.proisstrict, p.proretset
  FROM pg_proc p
  JOIN pg_language l ON l.oid = p.prolang
 WHERE p.pronamespace = 'pgstrom'::regnamespace
 ORDER BY p.proname;

-- everything the script created belongs to the extension
SELECT pg_describe_object(d.classid, d.objid, d.objsubid) AS member
  FROM pg_depend d
 WHERE d.refclassid = 'pg_extension'::regclass
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_strom')
   AND d.deptype = 'e'
 ORDER BY 1;

-- the library is preloaded; loading it again is a no-op
LOAD 'pg_strom';
