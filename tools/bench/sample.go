// Package bench measures draconform's own runs: how long a matrix takes and
// where the time goes, the CPU and memory it uses, and how the figures
// compare with the previous ones. `make bench` writes them to docs/bench.md;
// they are figures to read, never assertions.
package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Sample is the machine at one moment of a measured command.
type Sample struct {
	// At is the time since the command began.
	At time.Duration `json:"at"`
	// Busy is the fraction of all cores busy since the previous sample,
	// for the whole machine: the command and everything it started.
	Busy float64 `json:"busy"`
	// RSS is the resident memory of the command's process tree, in bytes.
	RSS int64 `json:"rss"`
}

// Sampler samples the machine's CPU and a process tree's memory every
// interval, from /proc.
type Sampler struct {
	Interval time.Duration
	mu       sync.Mutex
	samples  []Sample
	stop     chan struct{}
	done     chan struct{}
}

// Start samples until Stop, the tree rooted at pid.
func (s *Sampler) Start(pid int) {
	if s.Interval == 0 {
		s.Interval = time.Second
	}
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	began := time.Now()
	go func() {
		defer close(s.done)
		prevBusy, prevTotal, _ := cpuTimes()
		t := time.NewTicker(s.Interval)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
			busy, total, err := cpuTimes()
			if err != nil {
				continue
			}
			frac := 0.0
			if total > prevTotal {
				frac = float64(busy-prevBusy) / float64(total-prevTotal)
			}
			prevBusy, prevTotal = busy, total
			s.mu.Lock()
			s.samples = append(s.samples, Sample{At: time.Since(began), Busy: frac, RSS: treeRSS(pid)})
			s.mu.Unlock()
		}
	}()
}

// Stop ends the sampling and returns the samples.
func (s *Sampler) Stop() []Sample {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sample(nil), s.samples...)
}

// cpuTimes reads the busy and total jiffies of all cores from /proc/stat.
func cpuTimes() (busy, total uint64, err error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) < 5 || fields[0] != "cpu" {
		return 0, 0, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	for i, f := range fields[1:] {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return 0, 0, err
		}
		total += v
		// idle and iowait are the 4th and 5th columns.
		if i != 3 && i != 4 {
			busy += v
		}
	}
	return busy, total, nil
}

// treeRSS sums the resident memory of pid and its descendants.
func treeRSS(root int) int64 {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	children := map[int][]int{}
	rss := map[int]int64{}
	page := int64(os.Getpagesize())
	for _, p := range stats {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// The command name may hold spaces and parentheses: the fields
		// start after the last ')'.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 22 {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		ppid, _ := strconv.Atoi(f[1])
		pages, _ := strconv.ParseInt(f[21], 10, 64)
		children[ppid] = append(children[ppid], pid)
		rss[pid] = pages * page
	}
	var sum int64
	todo := []int{root}
	seen := map[int]bool{}
	for len(todo) > 0 {
		p := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[p] {
			continue
		}
		seen[p] = true
		sum += rss[p]
		todo = append(todo, children[p]...)
	}
	return sum
}

// LineTimes timestamps every line written to it: the milestones of a cold
// build are read off them.
type LineTimes struct {
	began time.Time
	mu    sync.Mutex
	buf   []byte
	Lines []TimedLine
}

// TimedLine is a line and when it was written, since the command began.
type TimedLine struct {
	At   time.Duration
	Text string
}

// NewLineTimes starts the clock.
func NewLineTimes() *LineTimes { return &LineTimes{began: time.Now()} }

// Write implements io.Writer.
func (l *LineTimes) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	consumed := 0
	for {
		i := bytes.IndexByte(l.buf[consumed:], '\n')
		if i < 0 {
			break
		}
		l.Lines = append(l.Lines, TimedLine{At: time.Since(l.began), Text: string(l.buf[consumed : consumed+i])})
		consumed += i + 1
	}
	l.buf = l.buf[consumed:]
	return len(p), nil
}

// First is when the first line containing s was written, and whether one was.
func (l *LineTimes) First(s string) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ln := range l.Lines {
		if strings.Contains(ln.Text, s) {
			return ln.At, true
		}
	}
	return 0, false
}
