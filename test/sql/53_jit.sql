--
-- Under JIT compilation of every expression: a GpuJoin's or GpuPreAgg's
-- scan slot holds its own rows, while its outer keys and quals read the
-- relation's heap tuples, which the compiled code must deform by the
-- relation's descriptor.  Without JIT in the server these run interpreted.
--
SET pg_strom.regression_test_mode = on;
SET search_path = public;
SET max_parallel_workers_per_gather = 0;
SET jit = on;
SET jit_above_cost = 0;
-- a join whose outer keys come after the join row's columns in the relation
SELECT * FROM check_gpujoin($$
	SELECT f.id, d1.name FROM gj_fact f JOIN gj_d1 d1 ON f.k_int = d1.id$$);
SELECT * FROM check_gpujoin($$
	SELECT d1.name, d3.w FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id
	  JOIN gj_d3 d3 ON d3.t = f.k_text
	 WHERE f.v > 10 AND md5(f.k_text) <> 'x'$$);
SELECT * FROM check_gpujoin($$
	SELECT f.k_f8, d4.s FROM gj_fact f
	  LEFT JOIN gj_d4 d4 ON d4.c = f.k_char
	 WHERE f.k_date > '2000-01-01'$$);
-- a GpuPreAgg fused over the join: its keys read the join row
SELECT * FROM check_gpupreagg($$
	SELECT d1.name, count(*), sum(f.v) FROM gj_fact f
	  JOIN gj_d1 d1 ON f.k_int = d1.id GROUP BY d1.name$$, 'name');
SELECT * FROM check_gpupreagg($$
	SELECT d3.w, count(*), max(f.k_ts) FROM gj_fact f
	  JOIN gj_d3 d3 ON d3.t = f.k_text
	 WHERE f.k_big > 0 GROUP BY d3.w$$, 'w');
-- a GpuPreAgg over the relation and a GpuScan with a CPU filter
SELECT * FROM check_gpupreagg($$
	SELECT gt, count(*), sum(b), avg(f8) FROM t_pa WHERE ts IS NOT NULL GROUP BY gt$$, 'gt');
SELECT * FROM check_gpuscan($$
	SELECT id, tz FROM t_pa WHERE c > 0 AND md5(gt) <> 'x'$$);
