package steps

import (
	"strings"
	"testing"
	"time"

	"github.com/draconform/draconform/tools/cluster"
)

func schedulerLog(attemptsFor map[string]int, extra ...string) string {
	var b strings.Builder
	for key, n := range attemptsFor {
		for i := 0; i < n; i++ {
			b.WriteString(`I1202 10:00:00.000000   42 schedule_one.go:1194] "Unable to schedule pod; no fit; waiting" pod="` + key + `" err="0/1 nodes are available: 1 cannot allocate all claims."` + "\n")
		}
	}
	for _, l := range extra {
		b.WriteString(l + "\n")
	}
	return b.String()
}

func TestJudgeSchedulerRun(t *testing.T) {
	const key = "ns/p1"
	run := func(id string, running bool, log string) cluster.Run {
		return cluster.Run{ID: id, Running: running, Log: log}
	}
	tests := []struct {
		name          string
		before, after cluster.Run
		fail          []string
		measured      string
	}{
		{"backoff", run("7", true, schedulerLog(map[string]int{key: 1})), run("7", true, schedulerLog(map[string]int{key: 4, "ns/other": 500})),
			nil, "3 (1 before the window)"},
		{"hot loop", run("7", true, schedulerLog(map[string]int{key: 1})), run("7", true, schedulerLog(map[string]int{key: 151})),
			[]string{"150 times", "hot loop"}, "150"},
		{"restarted", run("7", true, ""), run("8", true, ""), []string{"did not keep its run", "7", "8"}, ""},
		{"crashed", run("7", true, ""), run("7", false, ""), []string{"did not keep its run"}, ""},
		{"recovered panic", run("7", true, schedulerLog(map[string]int{key: 1})),
			run("7", true, schedulerLog(map[string]int{key: 2}, `E1202 10:00:01.000000 42 runtime.go:142] "Observed a panic" panic="runtime error: index out of range"`)),
			[]string{"logged a panic", "index out of range"}, ""},
		{"a scheduling error counts as an attempt", run("7", true, schedulerLog(map[string]int{key: 1})),
			run("7", true, schedulerLog(map[string]int{key: 1}, `E1202 10:00:03.000000 42 schedule_one.go:1198] "Error scheduling pod; retrying" err="running PreBind plugin" pod="`+key+`"`)),
			nil, "1 (1 before the window)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := &Env{}
			err := judgeSchedulerRun(env, tt.before, tt.after, key, "p1", 20*time.Second, attemptLimit{max: 10})
			if tt.fail == nil && err != nil {
				t.Fatalf("unexpected failure: %v", err)
			}
			if tt.fail != nil {
				if err == nil {
					t.Fatalf("passed; want a failure naming %q", tt.fail)
				}
				for _, w := range tt.fail {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("failure %q does not say %q", err, w)
					}
				}
			}
			got := strings.Join(env.Measurements(), "\n")
			if !strings.Contains(got, tt.measured) {
				t.Errorf("measurements %q do not say %q", got, tt.measured)
			}
		})
	}
}

// A scheduler below --v=2 logs no attempt: the step cannot count them, and
// the case does not apply; it must not pass as if it had counted.
func TestJudgeSchedulerRunUnmeasured(t *testing.T) {
	quiet := cluster.Run{ID: "7", Running: true, Log: "I1202 nothing at v=0\n"}
	env := &Env{}
	err := judgeSchedulerRun(env, quiet, quiet, "ns/p1", "p1", 20*time.Second, attemptLimit{max: 10})
	na, ok := AsNotApplicable(err)
	if !ok {
		t.Fatalf("want the case not applicable; got %v", err)
	}
	if na.Cause != causeNoAttempts || !strings.Contains(na.Reason, "--v=2") || !strings.Contains(na.Reason, "logged no attempt at pod p1") {
		t.Errorf("cause %q, reason %q: want %q and the reason the attempts cannot be counted", na.Cause, na.Reason, causeNoAttempts)
	}
	if len(env.Measurements()) != 0 {
		t.Errorf("measured %q from a log that shows no attempt", env.Measurements())
	}
}

// With a baseline, the limit follows what the same scheduler does for a pod
// KEP-6406 has no part in: a busy scheduler that retries every pending pod
// on each ResourceSlice change passes, one that retries the pod far more
// often than the baseline fails.
func TestJudgeSchedulerRunAgainstABaseline(t *testing.T) {
	const key, base = "ns/p1", "ns/plain"
	limit := attemptLimit{max: 4, baseline: "plain", baselineKey: base}
	run := func(n, b int) cluster.Run {
		return cluster.Run{ID: "7", Running: true, Log: schedulerLog(map[string]int{key: n, base: b})}
	}
	for _, tt := range []struct {
		name     string
		after    cluster.Run
		fails    bool
		measured string
	}{
		{"quiet cluster, backoff", run(5, 4), false, "pod p1 4, baseline pod plain 3 (allowed: twice the baseline plus 4, 10)"},
		{"busy cluster, retried on every slice change like any pod", run(31, 16), false, "pod p1 30, baseline pod plain 15"},
		{"hot loop", run(201, 4), true, "pod p1 200, baseline pod plain 3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := &Env{}
			err := judgeSchedulerRun(env, run(1, 1), tt.after, key, "p1", 20*time.Second, limit)
			if (err != nil) != tt.fails {
				t.Fatalf("failed: %v; want failure %v", err, tt.fails)
			}
			if tt.fails && !strings.Contains(err.Error(), "hot loop") {
				t.Errorf("failure %q does not say hot loop", err)
			}
			if got := strings.Join(env.Measurements(), "\n"); !strings.Contains(got, tt.measured) {
				t.Errorf("measurements %q do not say %q", got, tt.measured)
			}
		})
	}
}
