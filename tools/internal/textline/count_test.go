package textline

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "cell", "0 cells"},
		{1, "cell", "1 cell"},
		{1, "process", "1 process"},
		{2, "process", "2 processes"},
		{3, "more line", "3 more lines"},
	} {
		if got := Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
