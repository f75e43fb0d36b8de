package textline

import (
	"fmt"
	"strings"
)

// Count is n and the noun, plural unless n is 1: "1 cell", "2 processes",
// so that a progress line never says "1 cells in 1 processes".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
