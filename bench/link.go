package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The link probe run asks the service for: 256MB per copy, 8 timed copies
// per direction (pgstrom.gpu_link_bandwidth's defaults).
const (
	linkProbeSizeMB = 256
	linkProbeCopies = 8
)

// LinkProbe is one row of pgstrom.gpu_link_bandwidth(): the pinned-memory
// bandwidth of one device, measured by the GPU service.
type LinkProbe struct {
	Device  int     `json:"device"`
	Bytes   int64   `json:"bytes_per_copy"`
	Copies  int     `json:"copies"`
	H2DGBps float64 `json:"h2d_gb_per_s"`
	D2HGBps float64 `json:"d2h_gb_per_s"`
}

// measureLink runs pgstrom.gpu_link_bandwidth(), one row per device.
func measureLink(ctx context.Context, conn *pgx.Conn) ([]LinkProbe, error) {
	rows, err := conn.Query(ctx, "SELECT device, bytes, copies, h2d_gbps, d2h_gbps FROM pgstrom.gpu_link_bandwidth($1, $2) ORDER BY device",
		linkProbeSizeMB, linkProbeCopies)
	if err != nil {
		return nil, fmt.Errorf("pgstrom.gpu_link_bandwidth(%d, %d): %w%s", linkProbeSizeMB, linkProbeCopies, err, errDetail(err))
	}
	probes, err := pgx.CollectRows(rows, pgx.RowToStructByPos[LinkProbe])
	if err != nil {
		return nil, fmt.Errorf("pgstrom.gpu_link_bandwidth(%d, %d): %w%s", linkProbeSizeMB, linkProbeCopies, err, errDetail(err))
	}
	return probes, nil
}

// errDetail is ": DETAIL" of a server error that has one (the service's
// state and reason), else "".
func errDetail(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Detail != "" {
		return ": " + pgErr.Detail
	}
	return ""
}

// linkInfo is the link bandwidth of the report: the -link-gbps flag when
// given (flagGBps > 0), else the service's measurement of the first device
// (the one GpuScan uses), else why there is none, and the '% link' column
// stays empty.
func linkInfo(flagGBps float64, probes []LinkProbe, probeErr error) LinkInfo {
	switch {
	case flagGBps > 0:
		return LinkInfo{GBps: ptr(flagGBps), Source: "supplied by the -link-gbps flag, measured outside this program"}
	case probeErr != nil:
		return LinkInfo{Source: "not measured: " + oneLine(probeErr.Error()) + "; the '% link' column is empty"}
	case len(probes) == 0:
		return LinkInfo{Source: "not measured: pgstrom.gpu_link_bandwidth() returned no device; the '% link' column is empty"}
	}
	p := probes[0]
	gbps := ptr(p.H2DGBps)
	if gbps == nil || *gbps <= 0 {
		return LinkInfo{Source: fmt.Sprintf("not measured: the service reported %g GB/s on device %d; the '%% link' column is empty", p.H2DGBps, p.Device), Measured: probes}
	}
	return LinkInfo{
		GBps:     gbps,
		Source:   fmt.Sprintf("pinned, measured by the service on device %d, %dMB x %d", p.Device, p.Bytes>>20, p.Copies),
		Measured: probes,
	}
}

// linkPhase measures the link unless the flag gave it; a failed probe is
// reported, not fatal.
func linkPhase(ctx context.Context, conn *pgx.Conn, cfg *Config) (LinkInfo, error) {
	if cfg.LinkGBps > 0 {
		return linkInfo(cfg.LinkGBps, nil, nil), nil
	}
	probes, err := measureLink(ctx, conn)
	if ctx.Err() != nil {
		return LinkInfo{}, fmt.Errorf("link probe: %w", ctx.Err())
	}
	for _, p := range probes {
		fmt.Fprintf(cfg.Stderr, "  device %d: host to device %.1f GB/s, device to host %.1f GB/s (pinned, %dMB x %d)\n",
			p.Device, p.H2DGBps, p.D2HGBps, p.Bytes>>20, p.Copies)
	}
	link := linkInfo(0, probes, err)
	if link.GBps == nil {
		fmt.Fprintf(cfg.Stderr, "  host-to-device link %s\n", link.Source)
	}
	return link, nil
}

// gbps is the bandwidth the '% link' column divides by; 0 when unknown.
func (l LinkInfo) gbps() float64 {
	if l.GBps == nil {
		return 0
	}
	return *l.GBps
}
