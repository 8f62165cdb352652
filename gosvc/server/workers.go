package server

// SetWorkers resizes the worker pool live: growing starts goroutines,
// shrinking tells the newest ones to exit once their current command is
// done.  n is clamped to [MinWorkers, MaxWorkers].  Stats().Workers follows
// as the workers actually start and exit.
func (s *Server) SetWorkers(n int) {
	n = min(max(n, MinWorkers), MaxWorkers)
	s.workersMu.Lock()
	defer s.workersMu.Unlock()
	select {
	case <-s.done:
		return // closed: no new goroutines
	default:
	}
	for len(s.workers) < n {
		stop := make(chan struct{})
		s.workers = append(s.workers, stop)
		s.running.Add(1) // counted here so Stats is exact right after SetWorkers grows
		s.workerWG.Add(1)
		go s.worker(stop)
	}
	for len(s.workers) > n {
		last := len(s.workers) - 1
		close(s.workers[last])
		s.workers = s.workers[:last]
	}
}

// WantedWorkers is the worker count last asked for.
func (s *Server) WantedWorkers() int {
	s.workersMu.Lock()
	defer s.workersMu.Unlock()
	return len(s.workers)
}

func (s *Server) worker(stop <-chan struct{}) {
	defer s.workerWG.Done()
	defer s.running.Add(-1)
	for {
		// Check stop first so a shrink takes effect even with a busy queue.
		select {
		case <-stop:
			return
		default:
		}
		select {
		case <-stop:
			return
		case <-s.done:
			return
		case cmd := <-s.queue:
			s.execute(cmd)
		}
	}
}
