package textline

import "testing"

func TestFirstAndSummary(t *testing.T) {
	for _, c := range []struct{ in, first, summary string }{
		{"", "", ""},
		{"one line", "one line", "one line"},
		{"\n\t  padded  \n", "padded", "padded"},
		{"head\nrest\nmore", "head", "head …"},
		{"  head \nrest", "head ", "head  …"},
		{"\n\nafter blank lines\n\nrest", "after blank lines", "after blank lines …"},
	} {
		if got := First(c.in); got != c.first {
			t.Errorf("First(%q) = %q, want %q", c.in, got, c.first)
		}
		if got := Summary(c.in, " …"); got != c.summary {
			t.Errorf("Summary(%q) = %q, want %q", c.in, got, c.summary)
		}
	}
}
