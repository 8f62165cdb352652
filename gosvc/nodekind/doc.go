// Package nodekind is the registry of the service's node kinds (GpuScan,
// GpuPreAgg, ...) and the interfaces between a kind, the server and the
// executors.
//
// A kind is registered once, as a Kind: its XpuSession.kind id, its name,
// and Parse, which validates the kind's own part of an OpenSession message
// and returns a Spec.  The server runs every OpenSession through
// Registry.ParseSession and prepares the Spec on its executor; it knows no
// kind by name.  A Spec prepares itself by asking the executor for the
// primitives its kind needs (an interface the kind's package declares and
// the gpu and host executors implement), so an executor has no kind
// branches either.
//
// A Session answers TaskExec with replies it emits itself: any number of
// SUCCESS_HALFWAY parts through a ChunkSink, then the last part, which the
// server sends as SUCCESS; TaskFinal may emit SUCCESS_HALFWAY results
// through a FinalSink.  The server frames every payload (tag, length,
// request id), so a kind cannot desynchronize the connection.
package nodekind
