--
-- GPU service status.  This suite passes with a GPU (state 'ready', one
-- row per device) and without one (state 'no_gpu', one row, no devices),
-- so it prints no machine-specific values.
--

-- right after server start the service may still be starting
DO $$
BEGIN
    FOR i IN 1..600 LOOP
        EXIT WHEN (SELECT state FROM pgstrom.gpu_service_status() LIMIT 1) <> 'starting';
        PERFORM pg_sleep(0.1);
    END LOOP;
END
$$;

-- one state for every row, and it is a final one
SELECT count(DISTINCT state) AS states,
       bool_and(state IN ('no_gpu', 'ready')) AS state_ok
  FROM pgstrom.gpu_service_status();

-- no_gpu exactly when there is no device
SELECT ((SELECT state FROM pgstrom.gpu_service_status() LIMIT 1) = 'no_gpu') =
       ((SELECT count(*) FROM pgstrom.gpu_device_info()) = 0) AS no_gpu_iff_no_device;

-- one row per device, or a single row without device columns
SELECT count(*) = greatest((SELECT count(*) FROM pgstrom.gpu_device_info()), 1) AS row_count_ok,
       bool_and(CASE state
                WHEN 'no_gpu' THEN reason IS NOT NULL AND reason <> ''
                                   AND pid IS NULL
                                   AND device IS NULL AND workers IS NULL
                                   AND pool_used IS NULL AND pool_total IS NULL
                                   AND connections IS NULL AND host_pinned IS NULL
                ELSE reason IS NULL AND pid IS NOT NULL AND device IS NOT NULL
                END) AS columns_ok,
       bool_and(restarts >= 0 AND dropped_log_lines >= 0
                AND coalesce(host_pinned, 0) >= 0) AS counters_ok
  FROM pgstrom.gpu_service_status();

-- the status rows name the same devices as gpu_device_info
SELECT (SELECT array_agg(device ORDER BY device) FROM pgstrom.gpu_device_info())
       IS NOT DISTINCT FROM
       (SELECT array_agg(device ORDER BY device) FROM pgstrom.gpu_service_status()
         WHERE device IS NOT NULL) AS same_devices;

-- device attributes are plausible (vacuously true without devices)
SELECT coalesce(bool_and(device >= 0 AND name <> '' AND total_memory > 0
                         AND compute_capability ~ '^[0-9]+\.[0-9]+$'
                         AND multiprocessors > 0
                         AND pcie_link <> '' AND pci_bus_id <> ''), true) AS devices_ok
  FROM pgstrom.gpu_device_info();

-- zero-copy registration: bytes and time are never negative, and a device
-- without registered shared buffers says why (vacuously true without devices)
SELECT coalesce(bool_and(shared_registered >= 0 AND shared_register_ms >= 0
                         AND (shared_reason IS NULL OR shared_reason <> '')
                         AND (shared_registered > 0 OR shared_reason IS NOT NULL)), true) AS shared_ok
  FROM pgstrom.gpu_device_info();

-- the functions read shared memory only, so they work for anyone
CREATE ROLE regress_pgstrom_user;
SET ROLE regress_pgstrom_user;
SELECT count(*) > 0 AS visible FROM pgstrom.gpu_service_status();
RESET ROLE;

--
-- gpu_link_bandwidth(size_mb, copies): the arguments are checked before
-- the service state, so these errors are the same with and without a GPU
--
SELECT * FROM pgstrom.gpu_link_bandwidth(0);
SELECT * FROM pgstrom.gpu_link_bandwidth(1025);
SELECT * FROM pgstrom.gpu_link_bandwidth(256, 0);
SELECT * FROM pgstrom.gpu_link_bandwidth(256, 65);
SELECT count(*) AS strict_rows FROM pgstrom.gpu_link_bandwidth(NULL);

-- with a GPU one plausible row per device; without one, the service's
-- not-available error (both print nothing)
DO $$
DECLARE
    st text := (SELECT state FROM pgstrom.gpu_service_status() LIMIT 1);
    ndev int := (SELECT count(*) FROM pgstrom.gpu_device_info());
    nrows int;
    plausible bool;
    msg text;
    detail text;
BEGIN
    BEGIN
        SELECT count(*), coalesce(bool_and(bytes = 1048576 AND copies = 1
                                           AND h2d_gbps > 0 AND d2h_gbps > 0), false)
          INTO nrows, plausible
          FROM pgstrom.gpu_link_bandwidth(1, 1);
    EXCEPTION WHEN connection_failure THEN
        GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
        IF st = 'ready' OR msg <> 'GPU service is not available'
           OR detail NOT LIKE 'The service state is ' || st || '%' THEN
            RAISE EXCEPTION 'gpu_link_bandwidth in state %: % (%)', st, msg, detail;
        END IF;
        RETURN;
    END;
    IF st <> 'ready' OR nrows <> ndev OR NOT plausible THEN
        RAISE EXCEPTION 'gpu_link_bandwidth in state % returned % rows for % devices, plausible %',
            st, nrows, ndev, plausible;
    END IF;
END
$$;

-- the probe takes device memory: superusers, and roles granted EXECUTE
SET ROLE regress_pgstrom_user;
SELECT * FROM pgstrom.gpu_link_bandwidth(1, 1);
RESET ROLE;
SELECT has_function_privilege('regress_pgstrom_user', 'pgstrom.gpu_link_bandwidth(int, int)', 'EXECUTE') AS before_grant;
GRANT EXECUTE ON FUNCTION pgstrom.gpu_link_bandwidth(int, int) TO regress_pgstrom_user;
SELECT has_function_privilege('regress_pgstrom_user', 'pgstrom.gpu_link_bandwidth(int, int)', 'EXECUTE') AS after_grant;
REVOKE EXECUTE ON FUNCTION pgstrom.gpu_link_bandwidth(int, int) FROM regress_pgstrom_user;
DROP ROLE regress_pgstrom_user;

-- no service process has exited abnormally in a fresh cluster
SELECT bool_and(last_exit IS NULL) AS no_exit_yet FROM pgstrom.gpu_service_status();

-- the clients of the service: none unless it is ready
SELECT count(*) = 0 OR (SELECT state FROM pgstrom.gpu_service_status() LIMIT 1) = 'ready'
       AS clients_only_when_ready
  FROM pgstrom.gpu_service_clients();
