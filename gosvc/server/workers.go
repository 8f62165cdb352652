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
	s.queue.wake() // stopped workers waiting for a command see their stop
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
	q := s.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		// Check stop first so a shrink takes effect even with a busy queue.
		select {
		case <-stop:
			return
		case <-s.done:
			return
		default:
		}
		cmd, ok := q.popLocked()
		if !ok {
			q.cond.Wait()
			continue
		}
		q.mu.Unlock()
		s.execute(cmd)
		q.mu.Lock()
	}
}
