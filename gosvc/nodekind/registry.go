package nodekind

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Registry is a fixed set of kinds, safe for concurrent use.
type Registry struct {
	kinds map[uint32]Kind
	known string // "1 (GpuScan), 2 (GpuPreAgg)", for errors
}

// NewRegistry registers kinds; ids and names must be unique.
func NewRegistry(kinds ...Kind) (*Registry, error) {
	r := &Registry{kinds: make(map[uint32]Kind, len(kinds))}
	names := map[string]bool{}
	var ids []uint32
	for _, k := range kinds {
		switch _, dup := r.kinds[k.ID]; {
		case k.Name == "" || k.Parse == nil:
			return nil, fmt.Errorf("node kind %d (%q): a kind needs a name and Parse", k.ID, k.Name)
		case dup:
			return nil, fmt.Errorf("node kind %d (%s): id already registered for %s", k.ID, k.Name, r.kinds[k.ID].Name)
		case names[k.Name]:
			return nil, fmt.Errorf("node kind %d: name %s already registered", k.ID, k.Name)
		}
		r.kinds[k.ID], names[k.Name] = k, true
		ids = append(ids, k.ID)
	}
	slices.Sort(ids)
	known := make([]string, len(ids))
	for i, id := range ids {
		known[i] = fmt.Sprintf("%d (%s)", id, r.kinds[id].Name)
	}
	r.known = strings.Join(known, ", ")
	return r, nil
}

// MustRegistry is NewRegistry for fixed lists; it panics on an error.
func MustRegistry(kinds ...Kind) *Registry {
	r, err := NewRegistry(kinds...)
	if err != nil {
		panic(err)
	}
	return r
}

// Lookup returns the kind registered for id.
func (r *Registry) Lookup(id uint32) (Kind, bool) {
	k, ok := r.kinds[id]
	return k, ok
}

// ErrUnknownKind marks an OpenSession of a kind nobody registered; it
// wraps protocol.ErrProtocol.
var ErrUnknownKind = fmt.Errorf("%w: unknown node kind", protocol.ErrProtocol)

// ParseSession validates a whole OpenSession message: the program every
// kind shares (xpu.ParseProgram), then the kind's own part.  Nothing of
// the message may reach a device unless this returns a nil error; every
// error wraps protocol.ErrProtocol.
func (r *Registry) ParseSession(msg []byte) (*xpu.Program, Spec, error) {
	p, err := xpu.ParseProgram(msg)
	if err != nil {
		return nil, nil, err
	}
	k, ok := r.kinds[p.Kind]
	if !ok {
		return nil, nil, fmt.Errorf("%w: xpu program: kind %d; this service runs %s", ErrUnknownKind, p.Kind, r.known)
	}
	spec, err := k.Parse(msg, p)
	if err == nil && spec == nil {
		err = errors.New("the kind accepted the session but returned no spec")
	}
	if err != nil {
		return nil, nil, errParse(k, err)
	}
	return p, spec, nil
}
