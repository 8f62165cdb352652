package server

// A worker is a slot, not a goroutine: at most limit commands hold a slot
// at once (pg_strom.max_async_tasks), each on a goroutine of its own.  A
// command that must wait for its client (a full outbox, a TaskFinal
// waiting for the session's suspended chunks) gives its slot back for the
// wait (whileSuspended) and takes one again, ahead of queued commands,
// when the client has drained.  So a client that reads slowly or not at
// all holds goroutines and the memory its commands hold, never a worker:
// it slows only itself.

// SetWorkers resizes the pool live: growing starts queued commands at
// once, shrinking lets running commands finish and starts no more until
// fewer than n hold a slot.  n is clamped to [MinWorkers, MaxWorkers].
func (s *Server) SetWorkers(n int) {
	n = min(max(n, MinWorkers), MaxWorkers)
	q := s.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.limit = n
	s.dispatchLocked()
}

// WantedWorkers is the worker count last asked for.
func (s *Server) WantedWorkers() int {
	q := s.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.limit
}

// dispatchLocked hands out free slots: first to suspended commands ready
// to resume, then to queued commands, each on a new goroutine.  A closed
// queue lets every resumer go (their connections are closing) and starts
// nothing new.
func (s *Server) dispatchLocked() {
	q := s.queue
	s.grantResumersLocked()
	for !q.closed && q.active < q.limit {
		cmd, ok := q.popLocked()
		if !ok {
			return
		}
		q.active++
		s.workerWG.Add(1)
		go s.runCommands(cmd)
	}
}

func (s *Server) grantResumersLocked() {
	q := s.queue
	for len(q.resumers) > 0 && (q.active < q.limit || q.closed) {
		q.active++
		close(q.resumers[0])
		q.resumers[0] = nil
		q.resumers = q.resumers[1:]
	}
}

// runCommands runs cmd, then, while its slot is still wanted, the next
// queued command: a busy queue does not start a goroutine per command.
func (s *Server) runCommands(cmd command) {
	defer s.workerWG.Done()
	q := s.queue
	for {
		s.execute(cmd)
		q.mu.Lock()
		q.active--
		s.grantResumersLocked()
		ok := false
		if !q.closed && q.active < q.limit {
			if cmd, ok = q.popLocked(); ok {
				q.active++
			}
		}
		q.mu.Unlock()
		if !ok {
			return
		}
	}
}

// whileSuspended runs wait, which blocks until a client has drained
// (or its connection closed), with the calling command's slot given to
// another command meanwhile; it returns once the command holds a slot
// again.  Only a goroutine running a command may call it.
func (s *Server) whileSuspended(wait func()) {
	q := s.queue
	q.mu.Lock()
	q.active--
	q.suspended++
	s.dispatchLocked()
	q.mu.Unlock()

	wait()

	q.mu.Lock()
	q.suspended--
	if len(q.resumers) == 0 && (q.active < q.limit || q.closed) {
		q.active++
		q.mu.Unlock()
		return
	}
	turn := make(chan struct{})
	q.resumers = append(q.resumers, turn)
	q.mu.Unlock()
	<-turn
}

// workerCounts is the slots wanted, held and given back by suspended
// commands.
func (s *Server) workerCounts() (limit, busy, suspended int) {
	q := s.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.limit, q.active, q.suspended
}
