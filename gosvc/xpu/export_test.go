package xpu

import "github.com/pgstrom-go/pg_strom/gosvc/protocol"

// SplitPreAggGroupsMax is SplitPreAggGroups with a message size limit
// tests can afford (they cannot allocate XPU_PREAGG_GROUPS_BYTES per
// case), its payloads framed as the replies of request id.
func SplitPreAggGroupsMax(id uint32, g PreAggGroups, entries []byte, maxBytes int) ([][]byte, error) {
	ps, err := splitPreAggGroups(g, entries, maxBytes)
	if err != nil {
		return nil, err
	}
	msgs := make([][]byte, len(ps))
	for i, p := range ps {
		if msgs[i], err = protocol.Frame(protocol.TagSuccessHalfway, id, p); err != nil {
			return nil, err
		}
	}
	return msgs, nil
}
