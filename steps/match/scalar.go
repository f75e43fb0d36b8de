package match

import (
	"math"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// scalarEqual compares two normalised non-null scalars. comparable is false
// when the kinds cannot be compared at all, which the caller reports as a
// type mismatch rather than a value difference.
func scalarEqual(want, got any) (equal, comparable bool) {
	switch w := want.(type) {
	case string:
		switch g := got.(type) {
		case string:
			if w == g {
				return true, true
			}
			wq, werr := resource.ParseQuantity(w)
			gq, gerr := resource.ParseQuantity(g)
			return werr == nil && gerr == nil && wq.Cmp(gq) == 0, true
		case time.Time:
			return sameInstant(g, w), true
		}
	case int64, float64:
		switch g := got.(type) {
		case int64, float64:
			return numbersEqual(w, g), true
		case string:
			gq, gerr := resource.ParseQuantity(g)
			wq, ok := numberQuantity(w)
			if gerr != nil || !ok {
				return false, false
			}
			return wq.Cmp(gq) == 0, true
		}
	case bool:
		if g, ok := got.(bool); ok {
			return w == g, true
		}
	case time.Time:
		switch g := got.(type) {
		case time.Time:
			return w.Equal(g), true
		case string:
			return sameInstant(w, g), true
		}
	}
	return false, false
}

// numbersEqual compares exactly: converting an int64 to float64 would round
// above 2^53 and make distinct values look equal.
func numbersEqual(a, b any) bool {
	ai, aInt := a.(int64)
	bi, bInt := b.(int64)
	switch {
	case aInt && bInt:
		return ai == bi
	case aInt:
		return intEqualsFloat(ai, b.(float64))
	case bInt:
		return intEqualsFloat(bi, a.(float64))
	}
	return a.(float64) == b.(float64)
}

func intEqualsFloat(i int64, f float64) bool {
	// -2^63 is exact in float64; 2^63 is not representable as int64.
	if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return false
	}
	return int64(f) == i
}

func numberQuantity(n any) (resource.Quantity, bool) {
	var s string
	switch n := n.(type) {
	case int64:
		s = strconv.FormatInt(n, 10)
	case float64:
		if math.IsInf(n, 0) || math.IsNaN(n) {
			return resource.Quantity{}, false
		}
		s = strconv.FormatFloat(n, 'f', -1, 64)
	}
	q, err := resource.ParseQuantity(s)
	return q, err == nil
}

// sameInstant accepts the layouts yaml.v3 itself resolves as timestamps that
// the API also emits: RFC 3339 (metav1.Time, MicroTime) and plain dates.
func sameInstant(t time.Time, s string) bool {
	for _, layout := range []string{time.RFC3339Nano, time.DateOnly} {
		if p, err := time.Parse(layout, s); err == nil {
			return p.Equal(t)
		}
	}
	return false
}
