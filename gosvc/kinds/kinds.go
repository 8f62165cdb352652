// Package kinds lists the node kinds the service runs: adding a kind is
// one line here, its package, and its primitives in the gpu and host
// executors.
package kinds

import (
	"github.com/pgstrom-go/pg_strom/gosvc/join"
	"github.com/pgstrom-go/pg_strom/gosvc/joinpreagg"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/preagg"
	"github.com/pgstrom-go/pg_strom/gosvc/scan"
)

var all = nodekind.MustRegistry(scan.Kind, preagg.Kind, join.Kind, joinpreagg.Kind)

// All is the registry of every node kind.
func All() *nodekind.Registry { return all }
