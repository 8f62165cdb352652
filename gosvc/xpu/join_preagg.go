package xpu

import "fmt"

// ParseJoinPreAgg validates a GPUJOIN_PREAGG session (GpuPreAgg fused over
// GpuJoin) as the kernels' xpu_join_preagg_setup_serial does: the join
// descriptor with its payload columns and residual quals, the GpuPreAgg
// descriptor over nodes of either stage, and the per-combination stage of
// the program (the nodes after the root).  No array may overlap another.
// Every error wraps protocol.ErrProtocol.
func ParseJoinPreAgg(msg []byte, p *Program) (*Join, *PreAgg, error) {
	if p.PreAggOffset == 0 {
		return nil, nil, protoErr("xpu join preagg: preagg_offset is 0 in a fused GpuJoin + GpuPreAgg session")
	}
	pa, paRegions, err := parsePreAgg(msg, p, true, p.regions)
	if err != nil {
		return nil, nil, err
	}
	j, _, err := parseJoin(msg, p, true, append(p.regions[:len(p.regions):len(p.regions)], paRegions...))
	if err != nil {
		return nil, nil, err
	}
	if err := checkInnerStage(p, j); err != nil {
		return nil, nil, protoErr("xpu join preagg: %v", err)
	}
	return j, pa, nil
}

// checkInnerStage is xpu_join_validate_inner_stage: no VAR after the root
// (the tuple walk fills only those up to it), every INNER_VAR names a
// payload column of its own type, and each residual qual is a BOOL node
// after the root at an INNER or LEFT depth that reads no deeper depth
// than its own, nor follows a node that does (it is evaluated when its
// depth's choice is made).
func checkInnerStage(p *Program, j *Join) error {
	// reach: the deepest depth a node reads (-1: outer only); stage: the
	// deepest reach of the nodes up to it
	reach := make([]int, len(p.Nodes))
	stage := make([]int, len(p.Nodes))
	prev := -1
	for i := p.Root + 1; i < len(p.Nodes); i++ {
		nd := &p.Nodes[i]
		r := -1
		switch nd.Opcode {
		case OpVar:
			return fmt.Errorf("node %d: a VAR after the root (node %d); the outer row's columns come before it", i, p.Root)
		case OpInnerVar:
			if nd.Aux < 0 || int(nd.Aux) >= len(j.Cols) {
				return fmt.Errorf("node %d (INNER_VAR): payload column %d of %d", i, nd.Aux, len(j.Cols))
			}
			c := j.Cols[nd.Aux]
			if c.InnerXType != nd.Restype {
				return fmt.Errorf("node %d (INNER_VAR): result type %s but payload column %d is %s", i, nd.Restype, nd.Aux, c.InnerXType)
			}
			r = c.Depth
		}
		for _, a := range nd.Args {
			if int(a) > p.Root && reach[a] > r {
				r = reach[a]
			}
		}
		reach[i] = r
		prev = max(prev, r)
		stage[i] = prev
	}
	for d, q := range j.Quals {
		if q == -1 {
			continue
		}
		switch {
		case j.Depths[d].Type != JoinInner && j.Depths[d].Type != JoinLeft:
			return fmt.Errorf("depth %d: a residual qual at a %s depth (INNER and LEFT only)", d, j.Depths[d].Type)
		case q <= int32(p.Root) || int(q) >= len(p.Nodes):
			return fmt.Errorf("depth %d: the residual qual is node %d, must be a node after the root (%d..%d)", d, q, p.Root+1, len(p.Nodes)-1)
		case p.Nodes[q].Restype != TypeBool:
			return fmt.Errorf("depth %d: the residual qual node %d returns %s, must return BOOL", d, q, p.Nodes[q].Restype)
		case stage[q] > d:
			return fmt.Errorf("depth %d: the residual qual node %d comes after a node that reads depth %d", d, q, stage[q])
		}
	}
	return nil
}
