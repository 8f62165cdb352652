package xpu_test

import (
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/kinds"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// parsedSession is what the server validates of an OpenSession message:
// the shared program, and a GpuPreAgg session's descriptor.
type parsedSession struct {
	*xpu.Program
	PreAgg *xpu.PreAgg // GpuPreAgg and fused sessions only
	Join   *xpu.Join   // GpuJoin and fused sessions only
}

// parseSession validates msg as the server does (the registry of every
// kind), and decodes the GpuPreAgg descriptor of an accepted one.
func parseSession(msg []byte) (*parsedSession, error) {
	p, _, err := kinds.All().ParseSession(msg)
	if err != nil {
		return nil, err
	}
	s := &parsedSession{Program: p}
	if p.Kind == xpu.KindGpuPreAgg {
		if s.PreAgg, err = xpu.ParsePreAgg(msg, p); err != nil {
			return nil, fmt.Errorf("the registry accepted a GpuPreAgg session that ParsePreAgg rejects: %w", err)
		}
	}
	if p.Kind == xpu.KindGpuJoinPreAgg {
		if s.Join, s.PreAgg, err = xpu.ParseJoinPreAgg(msg, p); err != nil {
			return nil, fmt.Errorf("the registry accepted a fused session that ParseJoinPreAgg rejects: %w", err)
		}
	}
	if p.Kind == xpu.KindGpuJoin {
		if s.Join, err = xpu.ParseJoin(msg, p); err != nil {
			return nil, fmt.Errorf("the registry accepted a GpuJoin session that ParseJoin rejects: %w", err)
		}
	}
	return s, nil
}
