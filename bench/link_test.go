package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

var probes = []LinkProbe{
	{Device: 0, Bytes: 256 << 20, Copies: 8, H2DGBps: 53.24, D2HGBps: 51.5},
	{Device: 1, Bytes: 256 << 20, Copies: 8, H2DGBps: 26.0, D2HGBps: 25.0},
}

func TestLinkInfoMeasured(t *testing.T) {
	l := linkInfo(0, probes, nil)
	if l.GBps == nil || *l.GBps != 53.24 || l.gbps() != 53.24 || len(l.Measured) != 2 {
		t.Fatalf("measured link %+v, want device 0's 53.24 GB/s and both rows", l)
	}
	rep := fakeReport()
	rep.Link = l
	rep.Results[0].computeFigures(l.gbps())
	var b bytes.Buffer
	if err := WriteTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	want := "host-to-device link: 53.2 GB/s (pinned, measured by the service on device 0, 256MB x 8)\n"
	if !strings.Contains(out, want) {
		t.Errorf("table lacks %q:\n%s", want, out)
	}
	// 14 GB in 0.5 s = 28 GB/s = 53% of 53.24 GB/s
	if !strings.Contains(out, " 53%") {
		t.Errorf("'%% link' column does not use the measured link:\n%s", out)
	}

	b.Reset()
	if err := WriteJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Link struct {
			GBps     float64 `json:"gb_per_s"`
			Source   string  `json:"source"`
			Measured []struct {
				Device  int     `json:"device"`
				Bytes   int64   `json:"bytes_per_copy"`
				Copies  int     `json:"copies"`
				D2HGBps float64 `json:"d2h_gb_per_s"`
			} `json:"measured"`
		} `json:"link"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Link.GBps != 53.24 || !strings.HasPrefix(doc.Link.Source, "pinned, measured by the service on device 0") ||
		len(doc.Link.Measured) != 2 || doc.Link.Measured[1].Device != 1 || doc.Link.Measured[0].Bytes != 256<<20 ||
		doc.Link.Measured[0].Copies != 8 || doc.Link.Measured[0].D2HGBps != 51.5 {
		t.Errorf("JSON link: %+v\n%s", doc.Link, b.String())
	}
}

func TestLinkInfoFlagOverrides(t *testing.T) {
	l := linkInfo(40, probes, nil)
	if l.gbps() != 40 || l.Measured != nil || !strings.Contains(l.Source, "-link-gbps") {
		t.Fatalf("flag link %+v, want 40 GB/s from the flag", l)
	}
	if l := linkInfo(40, nil, errors.New("boom")); l.gbps() != 40 {
		t.Fatalf("the flag must win over a failed probe: %+v", l)
	}
}

func TestErrDetail(t *testing.T) {
	pgErr := &pgconn.PgError{Severity: "ERROR", Code: "08006", Message: "GPU service is not available", Detail: "The service state is no_gpu: cuInit failed."}
	if got := errDetail(fmt.Errorf("query: %w", pgErr)); got != ": The service state is no_gpu: cuInit failed." {
		t.Errorf("errDetail = %q", got)
	}
	if got := errDetail(errors.New("connection reset")); got != "" {
		t.Errorf("errDetail of a plain error = %q", got)
	}
}

func TestLinkInfoNotMeasured(t *testing.T) {
	probeErr := errors.New("pgstrom.gpu_link_bandwidth(256, 8): ERROR: GPU service is not available (SQLSTATE 08006)")
	cases := map[string]struct {
		l    LinkInfo
		want string
	}{
		"probe failed": {linkInfo(0, nil, probeErr), "not measured: pgstrom.gpu_link_bandwidth(256, 8): ERROR: GPU service is not available (SQLSTATE 08006)"},
		"no rows":      {linkInfo(0, nil, nil), "returned no device"},
		"zero GB/s":    {linkInfo(0, []LinkProbe{{Device: 2, Bytes: 1 << 20, Copies: 1}}, nil), "reported 0 GB/s on device 2"},
	}
	for name, c := range cases {
		if c.l.GBps != nil || c.l.gbps() != 0 || !strings.Contains(c.l.Source, c.want) {
			t.Errorf("%s: %+v, want no bandwidth and a source containing %q", name, c.l, c.want)
		}
		rep := fakeReport()
		rep.Link = c.l
		r := &rep.Results[0]
		r.LinkPct = nil
		r.computeFigures(c.l.gbps())
		var b bytes.Buffer
		if err := WriteTable(&b, rep); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if r.LinkPct != nil {
			t.Errorf("%s: '%% link' computed without a link: %v", name, *r.LinkPct)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "count_1pct") && (strings.Contains(line, "%") || !strings.Contains(line, "4.00x")) {
				t.Errorf("%s: want a speedup and an empty '%% link' cell: %s", name, line)
			}
		}
		if !strings.Contains(out, "host-to-device link: not measured: ") || !strings.Contains(out, c.want) {
			t.Errorf("%s: the table does not say why the link is unknown:\n%s", name, out)
		}
	}
}
