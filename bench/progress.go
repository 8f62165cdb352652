package main

import (
	"io"
	"os"
	"sync"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// progress draws bars (github.com/vbauerster/mpb) for the long steps, the
// load's parts and the run's queries, when stderr is a terminal; otherwise
// (a file, a pipe, a test's buffer) it draws nothing and its bars do
// nothing, so logs stay plain text.
type progress struct {
	p    *mpb.Progress
	out  io.Writer
	mu   sync.Mutex
	bars []*mpb.Bar
}

// isTerminal says whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func newProgress(w io.Writer) *progress {
	if !isTerminal(w) {
		return &progress{out: w}
	}
	return &progress{p: mpb.New(mpb.WithOutput(w), mpb.WithWidth(40), mpb.WithAutoRefresh()), out: w}
}

// writer is where log lines go while bars are drawn: above the bars.
func (pr *progress) writer() io.Writer {
	if pr.p == nil {
		return pr.out
	}
	return pr.p
}

// progressBar is one bar; the zero value (no terminal) does nothing.
type progressBar struct {
	b     *mpb.Bar
	mu    *sync.Mutex
	label *string
}

// bar adds a bar of total steps named name.
func (pr *progress) bar(name string, total int64) progressBar {
	if pr.p == nil || total <= 0 {
		return progressBar{}
	}
	label := ""
	pb := progressBar{mu: &pr.mu, label: &label}
	b := pr.p.AddBar(total,
		mpb.PrependDecorators(decor.Name(name, decor.WCSyncSpaceR),
			decor.CountersNoUnit("%d/%d", decor.WCSyncSpace)),
		mpb.AppendDecorators(decor.Elapsed(decor.ET_STYLE_GO, decor.WCSyncSpace),
			decor.Any(func(decor.Statistics) string {
				pr.mu.Lock()
				defer pr.mu.Unlock()
				return "  " + *pb.label
			})))
	pb.b = b
	pr.mu.Lock()
	pr.bars = append(pr.bars, b)
	pr.mu.Unlock()
	return pb
}

// increment counts one step done; what names it.
func (pb progressBar) increment(what string) {
	if pb.b == nil {
		return
	}
	pb.mu.Lock()
	*pb.label = what
	pb.mu.Unlock()
	pb.b.Increment()
}

// wait ends the bars (aborting unfinished ones, after an error) and
// returns once they are drawn.
func (pr *progress) wait() {
	if pr.p == nil {
		return
	}
	pr.mu.Lock()
	for _, b := range pr.bars {
		if !b.Completed() {
			b.Abort(false)
		}
	}
	pr.mu.Unlock()
	pr.p.Wait()
	pr.p = nil
}
