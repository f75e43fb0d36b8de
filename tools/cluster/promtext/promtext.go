// Package promtext reads sums out of Prometheus' text exposition format,
// enough for the few series draconform reads of kube-scheduler's /metrics,
// without a dependency on the Prometheus client libraries.
package promtext

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
)

// Sum adds up the samples of metric whose labels include every one of want,
// and says how many series it summed. A line it cannot parse is an error:
// a misread metric must not read as zero where a verdict rests on it.
func Sum(text, metric string, want map[string]string) (float64, int, error) {
	return sum(text, metric, want, false)
}

// SumSkipping is Sum for figures no verdict rests on: a line it cannot
// parse is skipped, so one odd series costs nothing but itself.
func SumSkipping(text, metric string, want map[string]string) (float64, int, error) {
	return sum(text, metric, want, true)
}

func sum(text, metric string, want map[string]string, skipBad bool) (float64, int, error) {
	var sum float64
	n := 0
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		name, labels, value, err := parseSample(l)
		if err != nil {
			if skipBad {
				continue
			}
			return 0, 0, fmt.Errorf("metrics line %d: %w", line, err)
		}
		if name != metric || !hasLabels(labels, want) {
			continue
		}
		sum += value
		n++
	}
	return sum, n, sc.Err()
}

func hasLabels(got, want map[string]string) bool {
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// parseSample reads `name{k="v",...} value [timestamp]`.
func parseSample(l string) (string, map[string]string, float64, error) {
	labels := map[string]string{}
	end := strings.IndexAny(l, "{ ")
	if end <= 0 {
		return "", nil, 0, fmt.Errorf("no value in %q", l)
	}
	name, rest := l[:end], l[end:]
	if strings.HasPrefix(rest, "{") {
		i := 1
		for {
			for i < len(rest) && (rest[i] == ' ' || rest[i] == ',') {
				i++
			}
			if i < len(rest) && rest[i] == '}' {
				i++
				break
			}
			eq := strings.IndexByte(rest[i:], '=')
			if eq < 0 || i+eq+1 >= len(rest) || rest[i+eq+1] != '"' {
				return "", nil, 0, fmt.Errorf("malformed labels in %q", l)
			}
			key := rest[i : i+eq]
			i += eq + 2
			var v strings.Builder
			for ; i < len(rest) && rest[i] != '"'; i++ {
				if rest[i] == '\\' && i+1 < len(rest) {
					i++
					switch rest[i] {
					case 'n':
						v.WriteByte('\n')
					default:
						v.WriteByte(rest[i])
					}
					continue
				}
				v.WriteByte(rest[i])
			}
			if i >= len(rest) {
				return "", nil, 0, fmt.Errorf("unterminated label value in %q", l)
			}
			labels[key] = v.String()
			i++
		}
		rest = rest[i:]
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 || len(fields) > 2 {
		return "", nil, 0, fmt.Errorf("no single value in %q", l)
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return "", nil, 0, fmt.Errorf("value of %q: %w", l, err)
	}
	return name, labels, v, nil
}
