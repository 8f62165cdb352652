--
-- Configuration parameters: defaults, units, bounds, contexts, bad values
--
SELECT name, boot_val, unit, vartype, context, min_val, max_val
  FROM pg_settings
 WHERE name LIKE 'pg_strom.%'
 ORDER BY name;

-- regression_test_mode is hidden from SHOW ALL and pg_settings
SELECT count(*) FROM pg_settings WHERE name = 'pg_strom.regression_test_mode';
SHOW pg_strom.regression_test_mode;
SET pg_strom.regression_test_mode = on;
SHOW pg_strom.regression_test_mode;
RESET pg_strom.regression_test_mode;

-- the prefix is reserved: misspelled names are rejected
SET pg_strom.no_such_parameter = 1;

-- planner parameters (user-settable)
SHOW pg_strom.enabled;
SET pg_strom.enabled = off;
SHOW pg_strom.enabled;
SET pg_strom.enabled = 'maybe';
RESET pg_strom.enabled;
SET pg_strom.enable_gpuscan = 'maybe';
SET pg_strom.enable_gpupreagg = 'maybe';
SET pg_strom.enable_gpujoin = 'maybe';
SET pg_strom.cpu_fallback = 'maybe';
SET pg_strom.gpu_setup_cost = -1;
SET pg_strom.gpu_setup_cost = 'cheap';
SET pg_strom.gpu_tuple_cost = -0.001;
SET pg_strom.gpu_page_cost = -1;
SET pg_strom.gpu_operator_cost = -0.001;
SET pg_strom.gpu_task_timeout = -1;
SHOW pg_strom.gpu_task_timeout;
SET pg_strom.gpu_task_timeout = '1500ms';
SHOW pg_strom.gpu_task_timeout;
RESET pg_strom.gpu_task_timeout;
SET pg_strom.gpu_setup_cost = 250;
SHOW pg_strom.gpu_setup_cost;
RESET pg_strom.gpu_setup_cost;
SHOW pg_strom.gpu_setup_cost;

-- live service parameters (superuser only; cluster-wide)
SHOW pg_strom.max_async_tasks;
SET pg_strom.max_async_tasks = 0;
SET pg_strom.max_async_tasks = 257;
SET pg_strom.max_async_tasks = 'many';
SET pg_strom.max_async_tasks = 20;
SHOW pg_strom.max_async_tasks;
RESET pg_strom.max_async_tasks;
SHOW pg_strom.max_async_tasks;
SHOW pg_strom.gpuserv_debug_output;
SET pg_strom.gpuserv_debug_output = 'loud';
SET pg_strom.gpuserv_debug_output = on;
SHOW pg_strom.gpuserv_debug_output;
RESET pg_strom.gpuserv_debug_output;
SHOW pg_strom.gpuserv_debug_output;

-- reload-only and restart-only parameters cannot be SET
SET pg_strom.gpu_mempool_segment_sz = '512MB';
SET pg_strom.gpu_mempool_max_ratio = 0.6;
SET pg_strom.gpu_mempool_min_ratio = 0.1;
SET pg_strom.gpu_mempool_release_delay = '10s';
SET pg_strom.cuda_toolkit_basedir = '/opt/cuda';
SET pg_strom.cuda_stack_limit = '64kB';
SET pg_strom.gpu_page_cache_size = '1GB';

-- the device page cache: its size is taken at start; its use is per session
SHOW pg_strom.gpu_page_cache_size;
SHOW pg_strom.use_page_cache;
SET pg_strom.use_page_cache = 'maybe';
SET pg_strom.use_page_cache = off;
SHOW pg_strom.use_page_cache;
RESET pg_strom.use_page_cache;

-- non-superusers may change planner parameters only
CREATE ROLE regress_pgstrom_user;
SET ROLE regress_pgstrom_user;
SET pg_strom.enabled = off;
SHOW pg_strom.enabled;
SET pg_strom.max_async_tasks = 20;
SET pg_strom.gpuserv_debug_output = on;
SHOW pg_strom.max_async_tasks;
SELECT count(*) FROM pg_settings WHERE name IN ('pg_strom.max_async_tasks', 'pg_strom.gpuserv_debug_output');
RESET ROLE;
RESET pg_strom.enabled;
DROP ROLE regress_pgstrom_user;
