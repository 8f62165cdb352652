// Package direct reads the blocks of direct-read chunks (XPU_BUFFER_DIRECT)
// from the relation's segment files, checks each page as the backend's
// buffer manager would, and lays the pages out as an inline chunk's, so
// that every executor runs them unchanged (the gpu executor DMAs them from
// the pinned memory it lent, the host executor reads them in place).
//
// Reads go through a per-session cache of open files (Files) and are
// spread over several goroutines, one contiguous run of blocks per pread.
// PGSTROM_DIRECT_READ_ODIRECT=1 opens the files with O_DIRECT (where the
// filesystem allows it) and PGSTROM_DIRECT_READ_WORKERS sets the readers
// per chunk: both only for measuring, the defaults are buffered reads and
// min(16, GOMAXPROCS).
//
// A page fails its checks when it is not all-visible (a concurrent writer
// touched it since the backend decided), when its checksum does not match
// (data_checksums on) or when PostgreSQL's PageIsVerified would refuse its
// header: such a page is bounced (its header zeroed, so the kernels see no
// tuples) and named in the chunk's read report; the backend reads it
// through the buffer manager.
package direct
