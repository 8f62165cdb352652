/* sql/pg_strom--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION pg_strom" to load this file. \quit

--
-- GPU devices the GPU service found, as published in shared memory by the
-- "PG-Strom GPU Service" background worker.  No rows without a usable GPU.
-- shared_registered: bytes of shared buffers the service registered with
-- the device (read-only) for zero-copy scans, 0 if none, then
-- shared_reason says why (NULL when registered); shared_register_ms: how
-- long the registration took.
--
CREATE FUNCTION pgstrom.gpu_device_info()
RETURNS TABLE (
    device int,
    name text,
    total_memory bigint,
    compute_capability text,
    multiprocessors int,
    pcie_link text,
    pci_bus_id text,
    shared_registered bigint,
    shared_register_ms float8,
    shared_reason text,
    page_cache_bytes bigint)
AS 'MODULE_PATHNAME', 'pgstrom_gpu_device_info'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION pgstrom.gpu_device_info()
    IS 'GPU devices used by the PG-Strom GPU service';

--
-- State of the GPU service: one row per device, or one row with NULL
-- device columns when there is no device (for example state 'no_gpu').
-- busy: worker slots running a command (at most workers); suspended:
-- commands waiting for their client to read their replies, which hold
-- no worker; clients: client processes with a connection open;
-- max_client_connections: the most connections one of them holds
-- (bounded by pg_strom.max_connections_per_backend).
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
    dropped_log_lines bigint,
    host_pinned bigint,
    last_exit text,
    busy int,
    suspended int,
    clients int,
    max_client_connections int)
AS 'MODULE_PATHNAME', 'pgstrom_gpu_service_status'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION pgstrom.gpu_service_status()
    IS 'state of the PG-Strom GPU service and its devices';

--
-- The client processes (backends, parallel workers) using each device's
-- GPU service most, up to 32 per device, those with the most reply bytes
-- waiting for them to read first: open connections, commands in flight
-- (queued, running, suspended or with a reply not yet written) and reply
-- bytes queued.  A backend whose cursor stopped reading shows reply bytes
-- that do not fall; join pid with pg_stat_activity to see who it is.
-- Refreshed every second; no rows unless the service is ready.
--
CREATE FUNCTION pgstrom.gpu_service_clients()
RETURNS TABLE (
    device int,
    pid int,
    connections int,
    commands int,
    reply_bytes bigint)
AS 'MODULE_PATHNAME', 'pgstrom_gpu_service_clients'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION pgstrom.gpu_service_clients()
    IS 'client processes using the PG-Strom GPU service most, per device';

CREATE FUNCTION pgstrom.gpu_page_cache_relations()
RETURNS TABLE (
    device int,
    database oid,
    tablespace oid,
    relation regclass,
    relfilenode oid,
    cached_pages bigint,
    cached_bytes bigint,
    hits bigint,
    misses bigint,
    fills bigint,
    evictions bigint,
    refills bigint)
AS 'MODULE_PATHNAME', 'pgstrom_gpu_page_cache_relations'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION pgstrom.gpu_page_cache_relations()
    IS 'relations in each device page cache of the PG-Strom GPU service, with their hits and misses';

-- the status functions only read shared memory: anyone may look
GRANT USAGE ON SCHEMA pgstrom TO PUBLIC;

--
-- Host-to-device and device-to-host bandwidth of every GPU, measured by
-- the GPU service with pinned host memory (the path chunks take): one
-- untimed copy, then `copies` timed copies of size_mb megabytes in each
-- direction.  GB/s are 10^9 bytes per second.  The probe takes device
-- memory and occupies the link, so only superusers may run it, and roles
-- they GRANT EXECUTE to.
--
CREATE FUNCTION pgstrom.gpu_link_bandwidth(size_mb int DEFAULT 256,
                                           copies int DEFAULT 8)
RETURNS TABLE (
    device int,
    bytes bigint,
    copies int,
    h2d_gbps float8,
    d2h_gbps float8)
AS 'MODULE_PATHNAME', 'pgstrom_gpu_link_bandwidth'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION pgstrom.gpu_link_bandwidth(int, int)
    IS 'pinned host-to-device and device-to-host bandwidth of each GPU, measured by the PG-Strom GPU service';

REVOKE EXECUTE ON FUNCTION pgstrom.gpu_link_bandwidth(int, int) FROM PUBLIC;
