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
	"sort"
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
	// CPUSeconds is the CPU time the machine was busy since the previous
	// sample, all cores together.
	CPUSeconds float64 `json:"cpuSeconds"`
	// RSS is the resident memory of the command's process tree, in bytes.
	RSS int64 `json:"rss"`
}

// Sampler samples the machine's CPU and a process tree's memory every
// interval, from /proc, and the CPU of every process that started after
// it did, by program.
type Sampler struct {
	Interval time.Duration
	mu       sync.Mutex
	samples  []Sample
	// before are the processes already running at Start: not the
	// command's. seen is the last CPU time read of each process since.
	before map[procID]bool
	seen   map[procID]procCPU
	stop   chan struct{}
	done   chan struct{}
}

// procID tells a process from a later one that got its pid again.
type procID struct {
	pid   int
	start uint64 // clock ticks after boot
}

type procCPU struct {
	program string
	ticks   uint64
}

// Start samples until Stop, the tree rooted at pid.
func (s *Sampler) Start(pid int) {
	if s.Interval == 0 {
		s.Interval = time.Second
	}
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	s.before, s.seen = map[procID]bool{}, map[procID]procCPU{}
	for _, p := range readProcs() {
		s.before[p.id] = true
	}
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
			cpu := float64(busy-prevBusy) / clockTicks
			prevBusy, prevTotal = busy, total
			procs := readProcs()
			s.mu.Lock()
			s.samples = append(s.samples, Sample{At: time.Since(began), Busy: frac, CPUSeconds: cpu, RSS: treeRSS(procs, pid)})
			for _, p := range procs {
				if !s.before[p.id] {
					s.seen[p.id] = procCPU{p.program, p.ticks}
				}
			}
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

// ProgramCPU is the CPU time the processes of one program took.
type ProgramCPU struct {
	Program   string  `json:"program"`
	Processes int     `json:"processes"`
	Seconds   float64 `json:"cpuSeconds"`
}

// Programs is the CPU time (user and system) of every process that started
// after Start on the whole machine, the node's daemons that leave the
// command's tree included, by program, most first. Each process counts
// what it had taken at the last sample it was seen in: a process that
// lived less than an interval is missed, and one that exited takes at most
// an interval's CPU with it.
func (s *Sampler) Programs() []ProgramCPU {
	s.mu.Lock()
	defer s.mu.Unlock()
	by := map[string]*ProgramCPU{}
	for _, p := range s.seen {
		pc := by[p.program]
		if pc == nil {
			pc = &ProgramCPU{Program: p.program}
			by[p.program] = pc
		}
		pc.Processes++
		pc.Seconds += float64(p.ticks) / clockTicks
	}
	out := make([]ProgramCPU, 0, len(by))
	for _, pc := range by {
		out = append(out, *pc)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Seconds != out[j].Seconds {
			return out[i].Seconds > out[j].Seconds
		}
		return out[i].Program < out[j].Program
	})
	return out
}

// clockTicks is USER_HZ, the unit of the times in /proc/stat and
// /proc/<pid>/stat: 100 on every Linux architecture Go builds for.
const clockTicks = 100

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

// proc is one process as /proc/<pid>/stat shows it.
type proc struct {
	id      procID
	ppid    int
	program string // the command name, at most 15 bytes
	ticks   uint64 // user and system CPU time
	rss     int64  // bytes
}

// readProcs reads every process's stat file; processes that exit while it
// reads are left out.
func readProcs() []proc {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	page := int64(os.Getpagesize())
	out := make([]proc, 0, len(stats))
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// The command name may hold spaces and parentheses: the fields
		// start after the last ')'.
		open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
		if open < 0 || end < open {
			continue
		}
		f := strings.Fields(string(data[end+1:]))
		if len(f) < 22 {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		ppid, _ := strconv.Atoi(f[1])
		utime, _ := strconv.ParseUint(f[11], 10, 64)
		stime, _ := strconv.ParseUint(f[12], 10, 64)
		start, _ := strconv.ParseUint(f[19], 10, 64)
		pages, _ := strconv.ParseInt(f[21], 10, 64)
		out = append(out, proc{id: procID{pid, start}, ppid: ppid, program: string(data[open+1 : end]), ticks: utime + stime, rss: pages * page})
	}
	return out
}

// treeRSS sums the resident memory of root and its descendants.
func treeRSS(procs []proc, root int) int64 {
	children := map[int][]int{}
	rss := map[int]int64{}
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.id.pid)
		rss[p.id.pid] = p.rss
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

// LoadAverage is the machine's one-minute load average; 0 where it cannot
// be read.
func LoadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
