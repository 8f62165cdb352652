/* sql/pg_strom--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION pg_strom" to load this file. \quit

--
-- GPU devices the GPU service found, as published in shared memory by the
-- "PG-Strom GPU Service" background worker.  No rows without a usable GPU.
--
CREATE FUNCTION pgstrom.gpu_device_info()
RETURNS TABLE (
    device int,
    name text,
    total_memory bigint,
    compute_capability text,
    multiprocessors int,
    pcie_link text,
    pci_bus_id text)
AS 'MODULE_PATHNAME', 'pgstrom_gpu_device_info'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION pgstrom.gpu_device_info()
    IS 'GPU devices used by the PG-Strom GPU service';

--
-- State of the GPU service: one row per device, or one row with NULL
-- device columns when there is no device (for example state 'no_gpu').
--
CREATE FUNCTION pgstrom.gpu_service_status()
RETURNS TABLE (
    pid int,
    state text,
    reason text,
    restarts int,
    device int,
    workers int,
    pool_used bigint,
    pool_total bigint,
    connections int,
    dropped_log_lines bigint)
AS 'MODULE_PATHNAME', 'pgstrom_gpu_service_status'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION pgstrom.gpu_service_status()
    IS 'state of the PG-Strom GPU service and its devices';

-- the status functions only read shared memory: anyone may look
GRANT USAGE ON SCHEMA pgstrom TO PUBLIC;
