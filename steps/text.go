package steps

import "strings"

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return s
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
